"""Fixtures for the Matter tests: matter-demo on a free UDP port, and the Matter SDK's own Python
controller (home-assistant-chip-core) with one event loop for the whole run."""

import asyncio
import os
import pathlib
import signal
import socket
import subprocess
import tempfile

import pytest

PASSCODE = 20202021
DISCRIMINATOR = 3840


def pytest_addoption(parser):
    parser.addoption("--bin-path", default=".build/debug", help="folder with a built matter-demo")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
        probe.bind(("::", 0))
        return probe.getsockname()[1]


PAA_STORE = str(pathlib.Path(__file__).parent / "paa")  # the SDK's test PAA: attestation is checked, not bypassed


class Demo:
    """A running matter-demo, what it printed when ready, and its log."""

    def __init__(self, process: subprocess.Popen, ready: dict, log: pathlib.Path):
        self.process = process
        self.log = log
        self.port = int(ready["port"])
        self.passcode = int(ready["passcode"])
        self.discriminator = int(ready["discriminator"])
        self.manual = ready["manual"]
        self.qr = ready["qr"]


def start_demo(bin_path: str, state: pathlib.Path, *arguments: str, network=None) -> Demo:
    """matter-demo here, or in namespace A of `network` (with avahi there to advertise through)."""
    log = state.parent / (state.name + ".log")
    command = [os.path.join(bin_path, "matter-demo"), "--port", str(free_udp_port()), "--state", str(state), *arguments]
    with open(log, "ab") as log_file:
        if network:
            process = network.start(command, network.ns_a, stdout=subprocess.PIPE, stderr=log_file)
        else:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log_file, text=True)
    line = process.stdout.readline()
    if not line.startswith("ready "):
        process.kill()
        raise RuntimeError(f"matter-demo did not start: {line!r}")
    return Demo(process, dict(field.split("=", 1) for field in line.split()[1:]), log)


@pytest.fixture
def demo(request, tmp_path, network):  # the network first: this process must be in its namespace before the demo starts
    """matter-demo with the SDK's example passcode and discriminator."""
    running = start_demo(request.config.getoption("--bin-path"), tmp_path / "state",
                         "--passcode", str(PASSCODE), "--discriminator", str(DISCRIMINATOR))
    yield running
    running.process.send_signal(signal.SIGTERM)
    assert running.process.wait(timeout=10) == 0


@pytest.fixture(scope="session")
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="session")
def network():
    """Namespaces A (avahi, matter-demo) and B (this process, so the controller), or None with the
    reason kept in NETWORK_REASON: the loopback tests run either way."""
    from netns import Network
    made, reason = Network.make()
    global NETWORK_REASON
    NETWORK_REASON = reason
    if made:
        made.enter_b()
    yield made
    if made:
        made.close()


NETWORK_REASON = None


@pytest.fixture(scope="session")
def fabric_admin(tmp_path_factory, network):
    """The controller stack (one per process: it keeps /data/chip_*.ini and /tmp/chip_kvs) and a fabric admin."""
    import chip.CertificateAuthority
    import chip.native
    from chip.ChipStack import ChipStack

    chip.native.Init()
    storage = tmp_path_factory.mktemp("controller") / "storage.json"
    stack = ChipStack(persistentStoragePath=str(storage), enableServerInteractions=False)
    authorities = chip.CertificateAuthority.CertificateAuthorityManager(chipStack=stack)
    authority = authorities.NewCertificateAuthority()
    admin = authority.NewFabricAdmin(vendorId=0xFFF1, fabricId=1)
    admin.authorities = authorities  # for a second ecosystem's fabric (second_fabric_admin)
    yield admin
    authorities.Shutdown()
    stack.Shutdown()


@pytest.fixture(scope="session")
def second_fabric_admin(fabric_admin):
    """Another ecosystem: a root of its own and fabric 2, in the same controller stack."""
    return fabric_admin.authorities.NewCertificateAuthority().NewFabricAdmin(vendorId=0xFFF2, fabricId=2)


@pytest.fixture
def controller(fabric_admin):
    """A fresh controller per test: a failed PASE leaves a stray callback that breaks the next attempt on the same one."""
    controller = fabric_admin.NewController(paaTrustStorePath=PAA_STORE)
    yield controller
    controller.Shutdown()
