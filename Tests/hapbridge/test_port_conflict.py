"""A HomeKit bridge whose port is taken never stops the house (issue 42, item 9).

A plain socket holds the bridge's port before homegate starts: homegate runs the house anyway (a
write over HTTP reaches the simulated device), `homegate health` and the health report's warnings
name the port and who holds it (this test's own process), `homegate doctor` fails the check with
the same, and once the socket is closed the bridge comes up by itself and pairs (and its
FirmwareRevision is `homegate --version`).

Run with scripts/hap-bridge-test.sh (-k port for this alone)."""

import asyncio
import json
import os
import socket
import urllib.request

import pytest

import controllers
from bridge_house import SETUP_CODE, START, BridgeHouse, Subscription, wait_until


class BlockedHouse(BridgeHouse):
    def start_gateway_without_bridge(self):
        """`homegate run`, ready once it serves HTTP (the bridge cannot listen, so not waited for)."""
        self.start_gateway(ready=())

    def command(self, *arguments):
        result = self.run_homegate(*arguments, env=self.environment())
        return result.returncode, result.stdout + result.stderr

    def health(self):
        """The health report's data, as `request/health` answers it."""
        subscription = Subscription(self.mqtt_port, "homegate/response/health")
        try:
            self.publish("homegate/request/health", json.dumps({"transaction": "port-test"}))
            return subscription.message("homegate/response/health")["data"]
        finally:
            subscription.close()


@pytest.fixture(scope="module")
def house(bin_path):
    house = BlockedHouse(bin_path, "hap-port")
    try:
        house.start_mosquitto()
        house.start_simulator()
        yield house
    finally:
        house.stop_all()
        print(f"\n  logs in {house.workdir}")


def test_a_taken_port_leaves_the_house_running_and_says_who_holds_it(house):
    house.environment()  # picks the bridge's port
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", house.hap_port))
    holder.listen(1)
    try:
        house.start_gateway_without_bridge()
        wait_until(lambda: "bulb" in house.accessories() and house.accessories()["bulb"]["reachable"], START,
                   "the simulator's devices in /api/accessories")
        # The house runs: an HTTP write reaches the device.
        subscription = house.subscribe("zigbee2mqtt/bulb/set")
        request = urllib.request.Request(f"http://127.0.0.1:{house.http_port}/api/accessories/bulb/lightbulb/brightness",
                                         data=json.dumps({"value": 37}).encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        assert subscription.message("zigbee2mqtt/bulb/set")["brightness"] == round(37 * 254 / 100)
        subscription.close()

        who = f"(pid {os.getpid()})"
        wait_until(lambda: "cannot serve" in house.log(), START, "the log to say why the bridge does not serve")
        said = [line for line in house.log().splitlines() if "cannot serve" in line]
        assert f"port {house.hap_port} is in use by" in said[0] and who in said[0], said
        data = house.health()
        assert data["ready"] is True, data
        warnings = [w for w in data["warnings"] if "does not serve" in w]
        assert warnings and f"port {house.hap_port}" in warnings[0] and who in warnings[0], data["warnings"]
        assert data["homekit"]["bridges"][0]["serving"] is False, data["homekit"]
        status, output = house.command("health")
        assert status == 0 and f"port {house.hap_port} is in use by" in output, output
        status, output = house.command("doctor", "--timeout", "3")
        assert status == 1 and f"bridge 1 does not serve: port {house.hap_port} is in use by" in output, output
    finally:
        holder.close()

    # Released: the bridge comes up by itself (its backoff is at most twice the time it was held).
    wait_until(lambda: "HAP server listening" in house.log(), 120, "the bridge to listen once the port is free")
    assert "serves again" in house.log()
    said = [line for line in house.log().splitlines() if "cannot serve" in line]
    assert len(said) == 1, f"the reason is logged once, not at every try: {said}"

    async def pair():
        found = controllers.discovery(house.hap_port, house.api("/api/homekit")["bridges"][0]["device_id"])
        finish = await found.async_start_pairing("port")
        paired = await finish(SETUP_CODE)
        accessories = await paired.list_accessories_and_characteristics()
        await paired.close()
        await found.close()
        return accessories

    accessories = asyncio.run(pair())
    assert len(accessories) > 1
    # The bridge's FirmwareRevision (type 52) is homegate's version.
    bridge = next(a for a in accessories if a["aid"] == 1)
    firmware = [c["value"] for service in bridge["services"] for c in service["characteristics"]
                if c["type"].upper().startswith("00000052-")]
    status, version = house.command("--version")
    assert status == 0 and firmware == [version.split()[0]], (firmware, version)
    data = house.health()
    assert not [w for w in data["warnings"] if "does not serve" in w], data["warnings"]
    assert data["homekit"]["bridges"][0]["serving"] is True
    assert "not serving" not in house.api("/api/homekit")["bridges"][0]["advertisement"]["detail"]
