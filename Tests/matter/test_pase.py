"""PASE between the Matter SDK's own controller and matter-demo, over ::1 (no mDNS needed)."""

import tempfile
import time

import pytest
from chip.exceptions import ChipStackError
from chip.setup_payload import SetupPayload

from conftest import DISCRIMINATOR, PASSCODE


def test_the_printed_codes_are_what_the_sdk_reads(demo, fabric_admin):
    manual = SetupPayload().ParseManualPairingCode(demo.manual).attributes
    assert int(manual["SetUpPINCode"]) == PASSCODE
    assert int(manual["Short discriminator"]) == DISCRIMINATOR >> 8
    qr = SetupPayload().ParseQrCode(demo.qr).attributes
    assert int(qr["SetUpPINCode"]) == PASSCODE
    assert int(qr["Long discriminator"]) == DISCRIMINATOR
    assert int(qr["VendorID"]) == 0xFFF1
    assert qr["CommissioningFlow"] == "0"


def test_the_controller_establishes_pase_with_the_right_passcode(demo, controller, loop):
    started = time.monotonic()
    loop.run_until_complete(controller.EstablishPASESessionIP("::1", PASSCODE, 0x1001, demo.port))
    print(f"\nPASE over ::1: {1000 * (time.monotonic() - started):.0f} ms")


def test_a_wrong_passcode_fails_pase_and_the_right_one_still_works(demo, fabric_admin, controller, loop):
    # The controller finds the mismatch first (the device's confirmation cB does not check out);
    # the device's own refusal of a bad cA is in MatterTests.
    throwaway = fabric_admin.NewController(paaTrustStorePath=tempfile.mkdtemp())
    try:
        with pytest.raises(ChipStackError):
            loop.run_until_complete(throwaway.EstablishPASESessionIP("::1", PASSCODE + 1, 0x1002, demo.port))
    finally:
        throwaway.Shutdown()
    loop.run_until_complete(controller.EstablishPASESessionIP("::1", PASSCODE, 0x1003, demo.port))


def test_random_setup_is_kept_across_restarts(request, tmp_path):
    from conftest import start_demo
    bin_path = request.config.getoption("--bin-path")
    first = start_demo(bin_path, tmp_path / "state")
    first.process.terminate()
    first.process.wait(timeout=10)
    second = start_demo(bin_path, tmp_path / "state")
    second.process.terminate()
    second.process.wait(timeout=10)
    assert (first.passcode, first.discriminator, first.manual, first.qr) == (second.passcode, second.discriminator, second.manual, second.qr)
    assert first.passcode not in {0, 11111111, 22222222, 33333333, 44444444, 55555555, 66666666, 77777777, 88888888, 99999999, 12345678, 87654321}
    assert oct((tmp_path / "state" / "setup").stat().st_mode & 0o777) == "0o600"


def test_the_controller_reads_basic_information_over_the_pase_session(demo, controller, loop):
    import chip.clusters as Clusters
    basic = Clusters.BasicInformation
    loop.run_until_complete(controller.EstablishPASESessionIP("::1", PASSCODE, 0x1004, demo.port))
    started = time.monotonic()
    result = loop.run_until_complete(controller.ReadAttribute(0x1004, [
        (0, basic.Attributes.VendorID), (0, basic.Attributes.ProductID), (0, basic.Attributes.ProductName),
        (0, basic.Attributes.VendorName), (0, basic.Attributes.DataModelRevision)]))
    print(f"\nread of five attributes over PASE: {1000 * (time.monotonic() - started):.0f} ms")
    attributes = result[0][basic]
    assert attributes[basic.Attributes.VendorID] == 0xFFF1
    assert attributes[basic.Attributes.ProductID] == 0x8000
    assert attributes[basic.Attributes.ProductName] == "matter-demo"
    assert attributes[basic.Attributes.VendorName] == "homegate"


def test_the_controller_reads_a_whole_cluster_by_wildcard_and_gets_an_error_for_a_missing_one(demo, controller, loop):
    import chip.clusters as Clusters
    loop.run_until_complete(controller.EstablishPASESessionIP("::1", PASSCODE, 0x1005, demo.port))
    result = loop.run_until_complete(controller.ReadAttribute(0x1005, [(0, Clusters.BasicInformation)]))
    attributes = result[0][Clusters.BasicInformation]
    assert attributes[Clusters.BasicInformation.Attributes.SoftwareVersionString] == "0.1"
    assert attributes[Clusters.BasicInformation.Attributes.ClusterRevision] == 3
    missing = loop.run_until_complete(controller.ReadAttribute(0x1005, [(0, Clusters.OnOff.Attributes.OnOff)]))
    assert isinstance(missing[0][Clusters.OnOff][Clusters.OnOff.Attributes.OnOff], Clusters.Attribute.ValueDecodeFailure)


def test_garbage_datagrams_neither_crash_nor_stall_the_device(demo, controller, loop):
    import os
    import socket
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as attacker:
        for size in [0, 1, 7, 8, 16, 40, 100, 1200]:
            for _ in range(20):
                attacker.sendto(os.urandom(size), ("::1", demo.port))
        # A well-formed unsecured header with a truncated PBKDFParamRequest.
        attacker.sendto(bytes.fromhex("0400000001000000090000000000000005200100000015"), ("::1", demo.port))
    loop.run_until_complete(controller.EstablishPASESessionIP("::1", PASSCODE, 0x1006, demo.port))
    assert demo.process.poll() is None


def test_pase_over_ipv4_too(demo, controller, loop):
    loop.run_until_complete(controller.EstablishPASESessionIP("127.0.0.1", PASSCODE, 0x1007, demo.port))


def test_the_controller_reads_the_root_nodes_descriptor(demo, controller, loop):
    import chip.clusters as Clusters
    descriptor = Clusters.Descriptor
    loop.run_until_complete(controller.EstablishPASESessionIP("::1", PASSCODE, 0x1008, demo.port))
    result = loop.run_until_complete(controller.ReadAttribute(0x1008, [(0, descriptor)]))
    attributes = result[0][descriptor]
    assert [t.deviceType for t in attributes[descriptor.Attributes.DeviceTypeList]] == [0x0016]
    assert attributes[descriptor.Attributes.ServerList] == [0x001D, 0x001F, 0x0028, 0x0030, 0x0031, 0x003C, 0x003E, 0x003F]
    assert attributes[descriptor.Attributes.PartsList] == [1, 2, 3, 4]  # the aggregator and the bridged devices
