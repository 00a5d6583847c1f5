"""Commissioning by the Matter SDK's own controller over ::1, with attestation checked against the
SDK's test PAA (no bypass). On loopback the controller gets as far as it can without mDNS: after
AddNOC it looks for the node operationally, which its minimal mDNS does not do on loopback
interfaces (docs/matter.md); so these tests stop there and check what the device accepted."""

import asyncio
import re
import time

from conftest import PASSCODE


def wait_for_log(demo, pattern, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, demo.log.read_text())
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"matter-demo never logged {pattern!r}; its log:\n{demo.log.read_text()}")


def commission_until_the_noc_is_added(controller, loop, demo, node_id):
    """PASE, then the controller's commissioning up to AddNOC; the device's NOCResponse status and fabric line."""
    loop.run_until_complete(controller.EstablishPASESessionIP("::1", PASSCODE, node_id, demo.port))
    started = time.monotonic()
    commissioning = loop.create_task(controller.Commission(node_id))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "fabric added" not in demo.log.read_text():
        loop.run_until_complete(asyncio.sleep(0.01))
    elapsed = time.monotonic() - started
    commissioning.cancel()  # it would wait for operational discovery, which loopback cannot give
    loop.run_until_complete(asyncio.gather(commissioning, return_exceptions=True))
    return wait_for_log(demo, r".*fabric added"), elapsed


def test_the_controller_verifies_attestation_and_installs_its_noc(demo, controller, loop):
    fabric_line, elapsed = commission_until_the_noc_is_added(controller, loop, demo, 0x2001)
    print(f"\ncommissioning up to AddNOC (attestation, CSR, root, NOC): {1000 * elapsed:.0f} ms")
    log = demo.log.read_text()
    # Each step the controller took, with the device's answer: every one accepted.
    assert re.search(r"cluster=0x30 command=0x0 .*result=response 0x1 status 0", log)  # ArmFailSafe
    assert re.search(r"cluster=0x30 command=0x2 .*result=response 0x3 status 0", log)  # SetRegulatoryConfig
    assert len(re.findall(r"cluster=0x3e command=0x2 .*result=response 0x3", log)) == 2  # PAI and DAC
    assert re.search(r"cluster=0x3e command=0x0 .*result=response 0x1", log)  # AttestationRequest
    assert re.search(r"cluster=0x3e command=0x4 .*result=response 0x5", log)  # CSRRequest
    assert re.search(r"cluster=0x3e command=0xb .*result=success", log)  # AddTrustedRootCertificate
    assert re.search(r"cluster=0x3e command=0x6 .*result=response 0x8 status 0", log)  # AddNOC: NOCResponse OK
    assert "node=2001" in fabric_line.group(0)
