"""aiohomekit 4.0.1 (the library Home Assistant's HomeKit Controller uses) drives the real homegate
as a black box: its HomeKit bridge on a free loopback port over Mosquitto and the Zigbee2MQTT
simulator, without mDNS (IpDiscovery gets the address and port directly, the controller a stub
AsyncZeroconf, as aiohomekit's own tests do). The tests run in order and share one pairing.

Run with scripts/hap-bridge-test.sh."""

import asyncio
import contextlib
import json
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import pytest
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.exceptions import (
    AccessoryDisconnectedError,
    AuthenticationError,
    HomeKitException,
    UnavailableError,
    UnpairedError,
)
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

import controllers
from bridge_house import SETUP_CODE, START, BridgeHouse, wait_until
from controllers import reconnected

STATE: dict = {}
TIMINGS: dict = {}
APPLE = "-0000-1000-8000-0026BB765291"
SERIAL = "00000030" + APPLE
NAME = "00000023" + APPLE
CONFIGURED_NAME = "000000E3" + APPLE


@pytest.fixture(scope="module")
def house(bin_path):
    house = BridgeHouse(bin_path, "hap-bridge")
    try:
        house.start_mosquitto()
        house.start_simulator()
        house.start_gateway()

        def ready():
            accessories = house.accessories()
            wanted = ["bulb", "power_plug", "weather_sensor"]
            return all(a in accessories and accessories[a]["reachable"] for a in wanted) and \
                value_of(accessories["bulb"], "lightbulb", "brightness") is not None

        wait_until(ready, START, "the simulator's devices in /api/accessories")
        house.simulator("report", {"id": "weather_sensor", "state": {"temperature": 21.5, "humidity": 48}})
        wait_until(lambda: value_of(house.accessories()["weather_sensor"], "temperature_sensor", "current_temperature") == 21.5,
                   10, "the weather sensor's reading")
        info = house.pairing_info()
        STATE["device_id"] = info["device id"]
        STATE["c#"] = int(info["c#"])
        yield house
    finally:
        house.stop_all()
        print(f"\n  logs in {house.workdir}")


def value_of(accessory, service_id, characteristic):
    service = next(s for s in accessory["services"] if s["id"] == service_id)
    return next(c for c in service["characteristics"] if c["type"] == characteristic)["value"]


def discovery(house) -> IpDiscovery:
    return controllers.discovery(house.hap_port, STATE["device_id"])


def pairing(house, data: dict | None = None) -> IpPairing:
    return reconnected(house.hap_port, data or STATE["pairing"])


def run(coroutine):
    return asyncio.run(coroutine)


async def listed(house):
    paired = pairing(house)
    accessories = await paired.list_accessories_and_characteristics()
    await paired.close()
    return accessories


def aids_by_accessory(accessories) -> dict:
    """homegate's accessory id is the AccessoryInformation serial number."""
    found = {}
    for accessory in accessories:
        if accessory["aid"] == 1:  # the bridge: its serial number is the HAP device id
            continue
        for service in accessory["services"]:
            for c in service["characteristics"]:
                if c["type"].upper() == SERIAL:
                    found[c["value"]] = accessory["aid"]
    return found


def path_id(house, path) -> tuple:
    """(aid, iid) of homegate's `accessory/service/characteristic`: the bridge lists an accessory's
    services and characteristics in homegate's order, after AccessoryInformation."""
    accessory_id, service_id, name = path.split("/")
    accessory = house.accessories()[accessory_id]
    s = next(i for i, service in enumerate(accessory["services"]) if service["id"] == service_id)
    c = next(i for i, c in enumerate(accessory["services"][s]["characteristics"]) if c["type"] == name)
    aid = STATE["aids"][accessory_id]
    hap = next(a for a in STATE["accessories"] if a["aid"] == aid)
    return aid, hap["services"][s + 1]["characteristics"][c]["iid"]


def test_wrong_setup_code_is_refused(house):
    async def body():
        found = discovery(house)
        finish = await found.async_start_pairing("wrong")
        with pytest.raises(AuthenticationError):
            await finish("111-22-333")
        await found.close()

    run(body())


def test_pairing_with_the_setup_code(house):
    async def body():
        found = discovery(house)
        started = time.perf_counter()
        finish = await found.async_start_pairing("test")
        paired = await finish(SETUP_CODE)
        TIMINGS["pair-setup"] = time.perf_counter() - started
        STATE["pairing"] = dict(paired.pairing_data)
        await paired.close()

    run(body())
    assert STATE["pairing"]["AccessoryPairingID"] == STATE["device_id"]


def test_second_pair_setup_is_refused(house):
    async def body():
        found = discovery(house)
        with pytest.raises(UnavailableError):
            await found.async_start_pairing("again")
        await found.close()

    run(body())


def test_accessories_match_homegates_own_listing(house):
    accessories = run(listed(house))
    STATE["accessories"] = accessories
    STATE["aids"] = aids_by_accessory(accessories)
    by_aid = {a["aid"]: a for a in accessories}
    assert [s["type"].upper() for s in by_aid[1]["services"]] == ["0000003E" + APPLE, "000000A2" + APPLE]
    assert max(by_aid) <= 150
    ours = house.accessories()
    assert set(STATE["aids"]) == set(ours), "one aid per homegate accessory"
    compared = 0
    for accessory_id, accessory in ours.items():
        hap = by_aid[STATE["aids"][accessory_id]]
        # The same services in the same order, after AccessoryInformation (a remote has several of one type).
        assert hap["services"][0]["type"].upper() == "0000003E" + APPLE
        assert len(hap["services"]) - 1 == len(accessory["services"]), accessory_id
        for service, hap_service in zip(accessory["services"], hap["services"][1:]):
            assert hap_service["type"].upper() == service["uuid"].upper(), (accessory_id, service["id"])
            # homegate's characteristics, then the bridge's Name and ConfiguredName (not on a hidden
            # service, a remote's service label or one not Apple's, like homegate's settings: no tile).
            names = [c["type"].upper() for c in hap_service["characteristics"][len(service["characteristics"]):]]
            assert names in ([], [NAME, CONFIGURED_NAME]), (accessory_id, service["id"], names)
            untiled = service["type"] == "service_label" or service.get("hidden", False) or \
                not service["uuid"].upper().endswith(APPLE)
            assert (names == []) == untiled, (accessory_id, service["id"])
            for c, mine in zip(service["characteristics"], hap_service["characteristics"]):
                assert mine["type"].upper() == c["uuid"].upper(), (accessory_id, service["id"], c["type"])
                assert mine["format"] == c["format"], (accessory_id, c["type"])
                expected_perms = {"read": "pr", "write": "pw", "notify": "ev"}
                assert [p for p in mine["perms"] if p in ("pr", "pw", "ev")] == \
                    [expected_perms[p] for p in c["permissions"]], (accessory_id, c["type"])
                for ours_key, hap_key in [("min", "minValue"), ("max", "maxValue"), ("step", "minStep")]:
                    assert mine.get(hap_key) == c.get(ours_key), (accessory_id, c["type"], hap_key)
                if c.get("unit") in ("celsius", "percentage", "arcdegrees", "lux", "seconds"):
                    assert mine.get("unit") == c["unit"]
                if isinstance(c.get("valid_values", [None])[0], int):
                    assert mine.get("valid-values") == c["valid_values"], (accessory_id, c["type"], mine)
                compared += 1
    print(f"\n  {len(ours)} accessories, {compared} characteristics compared with /api/accessories")


def test_reads_equal_the_simulator_state(house):
    bulb = house.accessories()["bulb"]
    on_id, brightness_id = path_id(house, "bulb/lightbulb/on"), path_id(house, "bulb/lightbulb/brightness")
    temperature_id = path_id(house, "weather_sensor/temperature_sensor/current_temperature")
    subscription = house.subscribe("zigbee2mqtt/bulb")
    # The simulator's own state, as Zigbee2MQTT answers a /get.
    house.publish("zigbee2mqtt/bulb/get", json.dumps({"state": "", "brightness": ""}))
    device = subscription.message("zigbee2mqtt/bulb")
    subscription.close()

    async def body():
        paired = pairing(house)
        values = await paired.get_characteristics([on_id, brightness_id, temperature_id])
        await paired.close()
        return values

    values = run(body())
    assert values[on_id]["value"] == (device["state"] == "ON") == value_of(bulb, "lightbulb", "on")
    assert values[brightness_id]["value"] == round(device["brightness"] * 100 / 254) == value_of(bulb, "lightbulb", "brightness")
    assert values[temperature_id]["value"] == 21.5


def test_a_write_reaches_the_simulator(house):
    on_id = path_id(house, "bulb/lightbulb/on")
    brightness_id = path_id(house, "bulb/lightbulb/brightness")
    bulb = house.accessories()["bulb"]
    on = not value_of(bulb, "lightbulb", "on")
    brightness = 40 if value_of(bulb, "lightbulb", "brightness") != 40 else 60
    subscription = house.subscribe("#")

    async def body():
        paired = pairing(house)
        await paired.get_characteristics([on_id])  # pair-verify first, so the latency is the write's
        started = time.perf_counter()
        result = await paired.put_characteristics([(*on_id, on), (*brightness_id, brightness)])
        await paired.close()
        return result, started

    result, started = run(body())
    assert result == {}
    command = subscription.message("zigbee2mqtt/bulb/set")
    TIMINGS["write -> /set (incl. mosquitto_sub)"] = time.perf_counter() - started
    assert command["state"] == ("ON" if on else "OFF") and command["brightness"] == round(brightness * 254 / 100)
    # The change comes back from the device, credited to HomeKit on homegate's own event topic.
    event = subscription.message("homegate/event/bulb/lightbulb/brightness")
    assert event["value"] == brightness and event["source"] == "hap"
    subscription.close()


def test_invalid_writes_get_their_status(house):
    brightness_id = path_id(house, "bulb/lightbulb/brightness")
    temperature_id = path_id(house, "weather_sensor/temperature_sensor/current_temperature")

    async def body():
        paired = pairing(house)
        out_of_range = await paired.put_characteristics([(*brightness_id, 101)])
        read_only = await paired.put_characteristics([(*temperature_id, 30.0)])
        await paired.close()
        return out_of_range, read_only

    out_of_range, read_only = run(body())
    assert out_of_range[brightness_id]["status"] == -70410
    assert read_only[temperature_id]["status"] == -70404


def test_identify_makes_the_device_show_itself(house):
    """Apple Home's "Identify Accessory": the Identify characteristic of a bridged accessory sends
    its device Zigbee2MQTT's identify (the bulb exposes it), through the same command as
    accessory/identify."""
    aid = STATE["aids"]["bulb"]
    hap = next(a for a in STATE["accessories"] if a["aid"] == aid)
    information = next(s for s in hap["services"] if s["type"].upper() in ("3E", "0000003E" + APPLE))
    identify = next(c for c in information["characteristics"] if c["type"].upper() in ("14", "00000014" + APPLE))
    subscription = house.subscribe("zigbee2mqtt/bulb/set")

    async def body():
        paired = pairing(house)
        result = await paired.put_characteristics([(aid, identify["iid"], True)])
        await paired.close()
        return result

    assert run(body()) == {}
    assert subscription.message("zigbee2mqtt/bulb/set") == {"identify": "identify"}
    subscription.close()


def test_a_device_side_change_arrives_as_an_event(house):
    brightness_id = path_id(house, "bulb/lightbulb/brightness")

    async def body():
        paired = pairing(house)
        events = []
        paired.dispatcher_connect(lambda event: events.append((time.perf_counter(), event)))
        await paired.subscribe([brightness_id])
        await asyncio.sleep(0.2)
        events.clear()
        sent = time.perf_counter()
        house.simulator("report", {"id": "bulb", "state": {"brightness": 127}})
        deadline = time.perf_counter() + 1.5
        while time.perf_counter() < deadline and not any(brightness_id in e for _, e in events):
            await asyncio.sleep(0.005)
        await paired.close()
        return sent, events

    sent, events = run(body())
    arrived = [(at, e[brightness_id]["value"]) for at, e in events if brightness_id in e]
    assert arrived, "no EVENT within 1.5 s of the device's change"
    TIMINGS["device change -> EVENT (incl. mosquitto_pub)"] = arrived[0][0] - sent
    assert arrived[-1][1] == 50


def test_a_button_press_arrives_at_once(house):
    accessory = house.accessories()["button"]
    service = next(s for s in accessory["services"]
                   if any(c["type"] == "programmable_switch_event" for c in s["characteristics"]))
    press_id = path_id(house, f"button/{service['id']}/programmable_switch_event")

    async def body():
        paired = pairing(house)
        events = []
        paired.dispatcher_connect(lambda event: events.append((time.perf_counter(), event)))
        await paired.subscribe([press_id])
        await asyncio.sleep(0.2)
        events.clear()
        sent = time.perf_counter()
        house.simulator("action", {"id": "button", "action": "double"})
        deadline = time.perf_counter() + 1.5
        while time.perf_counter() < deadline and not any(press_id in e for _, e in events):
            await asyncio.sleep(0.002)
        await paired.close()
        return sent, events

    sent, events = run(body())
    arrived = [(at, e[press_id]["value"]) for at, e in events if press_id in e]
    assert arrived, "no EVENT within 1.5 s of the button press"
    TIMINGS["button press -> EVENT (incl. mosquitto_pub)"] = arrived[0][0] - sent
    assert arrived[0][1] == 1  # double press
    # Sent without the 250 ms coalescing delay (the rest is mosquitto_pub's start and the simulator).
    assert arrived[0][0] - sent < 0.25


def test_the_writers_own_connection_gets_no_event(house):
    brightness_id = path_id(house, "bulb/lightbulb/brightness")
    current = value_of(house.accessories()["bulb"], "lightbulb", "brightness")
    wanted = 70 if current != 70 else 30

    async def body():
        writer, other = pairing(house), pairing(house)  # two connections of one controller
        writer_events, other_events = [], []
        writer.dispatcher_connect(lambda event: writer_events.append(event))
        other.dispatcher_connect(lambda event: other_events.append(event))
        await writer.subscribe([brightness_id])
        await other.subscribe([brightness_id])
        await asyncio.sleep(0.2)
        await writer.put_characteristics([(*brightness_id, wanted)])
        writer_events.clear()  # aiohomekit tells its own listeners about a successful write
        deadline = time.perf_counter() + 3
        while time.perf_counter() < deadline and not any(brightness_id in e for e in other_events):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)
        await writer.close()
        await other.close()
        return writer_events, other_events

    writer_events, other_events = run(body())
    assert [e[brightness_id]["value"] for e in other_events if brightness_id in e][-1] == wanted
    assert not [e for e in writer_events if brightness_id in e]


def tile_names(accessories, accessory_id) -> dict:
    """{service id: (Name, ConfiguredName, ConfiguredName's iid)} of one accessory as the bridge lists it."""
    hap = next(a for a in accessories if a["aid"] == STATE["aids"][accessory_id])
    services = homegate_services(accessory_id)
    names = {}
    for service_id, hap_service in zip(services, hap["services"][1:]):
        by_type = {c["type"].upper(): c for c in hap_service["characteristics"]}
        if NAME in by_type:
            names[service_id] = (by_type[NAME]["value"], by_type[CONFIGURED_NAME]["value"], by_type[CONFIGURED_NAME]["iid"])
    return names


def homegate_services(accessory_id) -> list:
    return [s["id"] for s in STATE["house"].accessories()[accessory_id]["services"]]


def test_each_tile_has_a_name_of_its_own(house):
    """A two-gang switch's gangs, a remote's buttons: each service has Name and ConfiguredName, and
    services of one type on one accessory are called differently, so their tiles differ."""
    STATE["house"] = house
    accessories = run(listed(house))
    # The demo's mapping makes its gangs lights: lightbulb_l1 and lightbulb_l2.
    switch = tile_names(accessories, "kitchen_wall_switch")
    assert [names[:2] for names in switch.values()] == [("kitchen wall switch l1",) * 2, ("kitchen wall switch l2",) * 2]
    repeated = 0
    for accessory_id, accessory in house.accessories().items():
        names = tile_names(accessories, accessory_id)
        by_type = {}
        for service in accessory["services"]:
            if service["id"] in names:
                by_type.setdefault(service["type"], []).append(names[service["id"]][0])
        for kind, same_type in by_type.items():
            if len(same_type) > 1:
                repeated += 1
                assert len(set(same_type)) == len(same_type), (accessory_id, kind, same_type)
                print(f"\n  {accessory_id}: {kind} tiles {same_type}", end="")
    assert repeated >= 2, "the demo house has accessories with repeated service types"


def test_a_tile_renamed_in_the_home_app_renames_the_service(house):
    """The Home app writes ConfiguredName: homegate keeps the name (the API shows it, MQTT announces
    it), another controller gets it as an EVENT, a read gives it back; the restart test below
    checks it is kept."""
    accessories = run(listed(house))
    aid = STATE["aids"]["kitchen_wall_switch"]
    gang, (_, _, iid) = next(iter(tile_names(accessories, "kitchen_wall_switch").items()))
    configured_id = (aid, iid)
    subscription = house.subscribe("homegate/event/accessory/kitchen_wall_switch")

    async def body():
        writer = pairing(house)
        watcher = pairing(house)
        events = []
        watcher.dispatcher_connect(lambda event: events.append(event))
        await watcher.subscribe([configured_id])
        result = await writer.put_characteristics([(*configured_id, "Counter lights")])
        deadline = time.perf_counter() + 3
        while time.perf_counter() < deadline and not any(configured_id in e for e in events):
            await asyncio.sleep(0.01)
        read = await writer.get_characteristics([configured_id])
        refused = await writer.put_characteristics([(*configured_id, "x" * 65)])
        await writer.close()
        await watcher.close()
        return result, events, read, refused

    result, events, read, refused = run(body())
    assert result == {}
    line = subscription.wait(lambda line: '"service_renamed"' in line, "the service_renamed event")
    subscription.close()
    event = json.loads(line.split(" ", 1)[1])
    assert event["service"] == gang and event["service_name"] == "Counter lights"
    service = next(s for s in house.accessories()["kitchen_wall_switch"]["services"] if s["id"] == gang)
    assert service["name"] == "Counter lights"
    assert [e[configured_id]["value"] for e in events if configured_id in e] == ["Counter lights"]
    assert read[configured_id]["value"] == "Counter lights"
    assert refused[configured_id]["status"] == -70410
    STATE["renamed tile"] = configured_id


def test_a_setpoint_between_steps_is_rounded_and_carried_out(house):
    """iOS writes a Fahrenheit user's 70 °F as 21.1111 °C: with steps of 0.5 it is carried out as 21."""
    setpoint_id = path_id(house, "bosch_radiator/thermostat/target_temperature")
    subscription = house.subscribe("zigbee2mqtt/bosch_radiator/set")

    async def body():
        paired = pairing(house)
        result = await paired.put_characteristics([(*setpoint_id, 21.11111)])
        await paired.close()
        return result

    assert run(body()) == {}
    assert subscription.message("zigbee2mqtt/bosch_radiator/set")["occupied_heating_setpoint"] == 21
    subscription.close()


def test_an_unreachable_device_reads_no_response(house):
    plug_id = path_id(house, "power_plug/outlet/on")
    bulb_id = path_id(house, "bulb/lightbulb/on")
    house.simulator("availability", {"id": "power_plug", "state": "offline"})
    wait_until(lambda: not house.accessories()["power_plug"]["reachable"], 10, "power_plug to be unreachable")

    async def body():
        paired = pairing(house)
        await paired.get_characteristics([bulb_id])
        started = time.perf_counter()
        both = await paired.get_characteristics([plug_id, bulb_id])
        took = time.perf_counter() - started
        write = await paired.put_characteristics([(*plug_id, True)])
        await paired.close()
        return both, took, write

    both, took, write = run(body())
    house.simulator("availability", {"id": "power_plug", "state": "online"})
    assert both[plug_id]["status"] == -70402
    assert "value" in both[bulb_id] and both[bulb_id].get("status", 0) == 0
    assert took < 0.5, f"a read with an unreachable accessory took {took:.3f} s"
    assert write[plug_id]["status"] == -70402


def test_after_a_restart_the_pairing_and_the_numbers_hold(house):
    before = STATE["accessories"]
    c_before = int(house.pairing_info()["c#"])
    house.stop_gateway()
    house.start_gateway()
    wait_until(lambda: house.accessories().get("bulb", {}).get("reachable"), START, "the bulb after the restart")
    after = run(listed(house))  # pair-verify with the stored keys
    assert shape(after) == shape(before)
    assert aids_by_accessory(after) == STATE["aids"]
    assert int(house.pairing_info()["c#"]) == c_before
    # The tile renamed in the Home app keeps its name.
    aid, iid = STATE["renamed tile"]
    assert next(c["value"] for a in after if a["aid"] == aid for s in a["services"] for c in s["characteristics"]
                if c["iid"] == iid) == "Counter lights"


def homekit_bridge(house) -> dict:
    """The first bridge as /api/homekit shows it."""
    return house.api("/api/homekit")["bridges"][0]


def shape(accessories) -> set:
    return {(a["aid"], s["iid"], s["type"], c["iid"], c["type"]) for a in accessories
            for s in a["services"] for c in s["characteristics"]}


def test_after_a_power_cut_the_house_is_known_before_the_devices(house):
    """Issue 42: after a power cut the broker comes back empty, and Zigbee2MQTT later than homegate.
    A controller reconnecting at once finds the house as it was (the same aids and iids), reads
    answer "No Response" (-70402, not -70409), a subscription succeeds and delivers events once the
    devices report, and c# holds before and after they come back. Every wait is for a positive
    signal: /api/homekit's `settled`, the bulb reachable, the EVENT itself."""
    c_before = homekit_bridge(house)["configuration_number"]
    on_id, brightness_id = path_id(house, "bulb/lightbulb/on"), path_id(house, "bulb/lightbulb/brightness")
    house.stop_all()
    house.start_mosquitto()  # without persistence: empty
    house.start_gateway()

    # Nothing has come from the broker, and nothing will until the simulator starts.
    bridge = homekit_bridge(house)
    assert bridge["settled"] is False, "no device list has come: the bridge cannot have settled"
    assert bridge["configuration_number"] == c_before
    bulb = house.accessories()["bulb"]
    assert bulb["reachable"] is False and bulb["unreachable_reason"] == "not heard from since start"

    def back():
        accessories = house.accessories()
        return homekit_bridge(house)["settled"] and accessories["bulb"]["reachable"] and accessories["power_plug"]["reachable"]

    async def body():
        paired = pairing(house)
        early = await paired.list_accessories_and_characteristics()
        reads = await paired.get_characteristics([on_id, brightness_id])
        write = await paired.put_characteristics([(*on_id, True)])
        events = []
        paired.dispatcher_connect(events.append)
        refused = await paired.subscribe([brightness_id])
        house.start_simulator()
        await asyncio.to_thread(wait_until, back, START, "the devices back and the bridge settled")
        c_after = (await asyncio.to_thread(homekit_bridge, house))["configuration_number"]
        later = await paired.list_accessories_and_characteristics()
        # A change the device reports reaches the subscription made before it was heard from.
        brightness = 77 if value_of(house.accessories()["bulb"], "lightbulb", "brightness") != 77 else 33
        house.simulator("report", {"id": "bulb", "state": {"brightness": round(brightness * 254 / 100)}})
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(e.get(brightness_id, {}).get("value") == brightness for e in events):
            await asyncio.sleep(0.02)
        value = await paired.get_characteristics([brightness_id])
        await paired.close()
        return early, reads, write, refused, c_after, later, events, brightness, value

    early, reads, write, refused, c_after, later, events, brightness, value = run(body())
    assert shape(early) == shape(STATE["accessories"]), "the same aids and iids before anything came from the broker"
    assert aids_by_accessory(early) == STATE["aids"]
    assert reads[on_id]["status"] == -70402 and reads[brightness_id]["status"] == -70402, reads
    assert write[on_id]["status"] == -70402, write
    assert not refused, f"the subscription was refused: {refused}"
    assert c_after == c_before, "c# holds when the devices come back as they were"
    assert shape(later) == shape(STATE["accessories"])
    assert any(e.get(brightness_id, {}).get("value") == brightness for e in events), f"no EVENT with {brightness}: {events}"
    assert value[brightness_id]["value"] == brightness
    assert "HomeKit accessory set changed" not in house.log()


def test_a_joined_device_bumps_the_configuration_number(house):
    c_before = int(house.pairing_info()["c#"])
    house.simulator("add", {"model": "LED1545G12", "friendly_name": "joined_bulb"})
    wait_until(lambda: "joined_bulb" in house.accessories(), 20, "joined_bulb in /api/accessories")
    wait_until(lambda: int(house.pairing_info()["c#"]) == c_before + 1, 10, "c# to go up by one")
    after = run(listed(house))
    aids = aids_by_accessory(after)
    assert {k: v for k, v in aids.items() if k != "joined_bulb"} == STATE["aids"]
    assert aids["joined_bulb"] == max(STATE["aids"].values()) + 1


def test_past_149_accessories_a_second_bridge_starts(house):
    before = run(listed(house))
    aids_before = aids_by_accessory(before)
    count = len(house.accessories())
    extra = 150 - count + 8  # the second bridge gets 8 + 1
    lines = "\n".join(json.dumps({"model": "LED1545G12", "friendly_name": f"extra_{n:03d}"}) for n in range(extra))
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(house.mqtt_port), "-t",
                    "zigbee2mqtt/bridge/request/simulator/add", "-l"], input=lines, text=True, check=True, timeout=30)
    wait_until(lambda: len(house.accessories()) == count + extra, 60, f"{count + extra} accessories in /api/accessories")
    def two_bridges():
        try:
            infos = house.pairing_infos()
        except AssertionError:  # the second bridge is in the map, its identity not stored yet
            return None
        return infos if len(infos) == 2 else None

    infos = wait_until(two_bridges, 20, "a second bridge")
    second = infos[1]
    STATE["second_bridge"] = second
    assert second["device id"] != STATE["device_id"]
    assert second["setup code"] != SETUP_CODE
    port = house.hap_port + 1

    async def body():
        found = controllers.discovery(port, second["device id"])
        finish = await found.async_start_pairing("test-2")
        paired = await finish(second["setup code"])
        accessories = await paired.list_accessories_and_characteristics()
        await paired.close()
        return accessories

    on_second = run(body())
    on_first = run(listed(house))
    first_aids, second_aids = aids_by_accessory(on_first), aids_by_accessory(on_second)
    assert max(a["aid"] for a in on_first) <= 150 and max(a["aid"] for a in on_second) <= 150
    assert len(first_aids) == 149 and len(second_aids) == count + extra - 149
    assert set(first_aids) | set(second_aids) == set(house.accessories()) and not set(first_aids) & set(second_aids)
    # Nothing that was on the first bridge moved or was renumbered.
    assert {k: first_aids.get(k) for k in aids_before} == aids_before
    print(f"\n  {count + extra} accessories: {len(first_aids)} on bridge 1, {len(second_aids)} on bridge 2")


def press_id(house) -> tuple:
    """(aid, iid) of the remote's first ProgrammableSwitchEvent."""
    accessory = house.accessories()["button"]
    service = next(s for s in accessory["services"]
                   if any(c["type"] == "programmable_switch_event" for c in s["characteristics"]))
    return path_id(house, f"button/{service['id']}/programmable_switch_event")


def test_a_button_press_reads_as_null(house):
    # HAP: reads of ProgrammableSwitchEvent return null; a press is only ever an event. The button
    # was pressed by an earlier test, and /accessories was listed before that.
    wanted = press_id(house)
    before = next(c for a in STATE["accessories"] if a["aid"] == wanted[0]
                  for s in a["services"] for c in s["characteristics"] if c["iid"] == wanted[1])

    async def body():
        paired = pairing(house)
        values = await paired.get_characteristics([wanted])
        await paired.close()
        return values

    values = run(body())
    assert before.get("value") is None
    assert values[wanted].get("status", 0) == 0 and values[wanted]["value"] is None, values


def test_unknown_characteristic_ids_answer_70409(house):
    bulb_on = path_id(house, "bulb/lightbulb/on")
    unknown = [(1, 999), (999, 9)]

    async def body():
        paired = pairing(house)
        read = await paired.get_characteristics([*unknown, bulb_on])
        # put_characteristics looks ids up in aiohomekit's own copy of /accessories first: the PUT as sent.
        written = await paired.connection.put_json("/characteristics", {"characteristics": [
            {"aid": unknown[0][0], "iid": unknown[0][1], "value": True},
            {"aid": unknown[1][0], "iid": unknown[1][1], "value": 1}]})
        await paired.close()
        return read, written

    read, written = run(body())
    assert [read[i]["status"] for i in unknown] == [-70409, -70409]
    assert read[bulb_on].get("status", 0) == 0 and isinstance(read[bulb_on]["value"], bool)
    assert {(c["aid"], c["iid"]): c["status"] for c in written["characteristics"]} == {i: -70409 for i in unknown}


def test_a_button_cannot_be_written(house):
    wanted = press_id(house)

    async def body():
        paired = pairing(house)
        written = await paired.put_characteristics([(*wanted, 0)])
        await paired.close()
        return written

    assert run(body())[wanted]["status"] == -70404  # read-only: ProgrammableSwitchEvent is pr, ev


def new_controller_keys():
    key = ed25519.Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    private = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()).hex()
    return str(uuid.uuid4()).upper(), public, private


def test_pairings_are_listed_added_and_removed(house):
    admin_id = STATE["pairing"]["iOSPairingId"]
    second_id, public, private = new_controller_keys()
    third_id, third_public, _ = new_controller_keys()
    second_data = {**STATE["pairing"], "iOSPairingId": second_id, "iOSDeviceLTSK": private, "iOSDeviceLTPK": public}
    bulb_on = path_id(house, "bulb/lightbulb/on")

    async def body():
        admin = pairing(house)
        alone = await admin.list_pairings()
        await admin.add_pairing(second_id, public, "User")
        both = await admin.list_pairings()
        second = pairing(house, second_data)
        read = await second.get_characteristics([bulb_on])  # pair-verify with the new controller's keys
        # HAP answers a regular controller's /pairings with kTLVError_Authentication, which
        # aiohomekit reports as UnpairedError for a list and AuthenticationError for an add or remove.
        with pytest.raises(UnpairedError):
            await second.list_pairings()
        with pytest.raises(AuthenticationError):
            await second.add_pairing(third_id, third_public, "User")
        with pytest.raises(AuthenticationError):
            await second.remove_pairing(admin_id)
        after_refusals = await admin.list_pairings()
        await admin.remove_pairing(second_id)
        final = await admin.list_pairings()
        await admin.close()
        with contextlib.suppress(AuthenticationError, AccessoryDisconnectedError):
            await second.close()
        again = pairing(house, second_data)
        with pytest.raises((AccessoryDisconnectedError, AuthenticationError)):
            await again.get_characteristics([bulb_on])
        with contextlib.suppress(AuthenticationError, AccessoryDisconnectedError):
            await again.close()
        return alone, both, read, after_refusals, final

    alone, both, read, after_refusals, final = run(body())
    assert [(p["pairingId"], p["controllerType"]) for p in alone] == [(admin_id, "admin")]
    assert {p["pairingId"]: p["controllerType"] for p in both} == {admin_id: "admin", second_id: "regular"}
    assert isinstance(read[bulb_on]["value"], bool)
    assert {p["pairingId"] for p in after_refusals} == {admin_id, second_id}, "a regular controller changed nothing"
    assert [p["pairingId"] for p in final] == [admin_id]


def test_an_excluded_accessory_is_left_out_and_comes_back_with_its_aid(house):
    before = aids_by_accessory(run(listed(house)))
    count = len(house.accessories())
    name = house.accessories()["bulb"]["name"]
    c_before = int(house.pairing_info()["c#"])
    house.stop_gateway()
    # By name, in another case; and a selector that names nothing, which the log must mention.
    house.settings = {"HOMEGATE_HAP_EXCLUDE": f"accessory:{name.upper()},room:Nowhere"}
    house.start_gateway()
    try:
        wait_until(lambda: len(house.accessories()) == count and house.accessories().get("bulb", {}).get("reachable"), START,
                   "every accessory back in /api/accessories")
        wait_until(lambda: int(house.pairing_info()["c#"]) > c_before, 20, "c# to go up")
        # Said before c# goes up: Apple Home forgets the accessory's setup.
        assert f"accessory bulb (aid {before['bulb']}) is no longer bridged: Apple Home forgets it" in house.log()
        c_without = int(house.pairing_info()["c#"])
        without = aids_by_accessory(run(listed(house)))
        wait_until(lambda: "'room:Nowhere'" in house.log(), 10, "a warning about room:Nowhere")
        assert "hap.exclude" in next(line for line in house.log().splitlines() if "'room:Nowhere'" in line)
        assert f"'accessory:{name.upper()}'" not in house.log()
    finally:
        house.stop_gateway()
        house.settings = {}
        house.start_gateway()
    assert "bulb" not in without
    assert without == {k: v for k, v in before.items() if k != "bulb"}, "nobody else moved"
    wait_until(lambda: house.accessories().get("bulb", {}).get("reachable"), START, "the bulb after the restart")
    wait_until(lambda: int(house.pairing_info()["c#"]) > c_without, 20, "c# to go up again")
    assert aids_by_accessory(run(listed(house)))["bulb"] == before["bulb"]


def test_a_malformed_selector_is_a_configuration_error(house):
    env = house.environment()
    env["HOMEGATE_HAP_INCLUDE"] = "room:Kitchen,kitchen"
    result = subprocess.run([str(house.bin_path / "homegate"), "run"], cwd=house.data, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 78, result
    assert "HOMEGATE_HAP_INCLUDE: hap.include:" in result.stderr and "'kitchen'" in result.stderr, result.stderr


def http(house, method, path):
    """(status, JSON body) of one call to homegate's HTTP API (this house sets no token)."""
    request = urllib.request.Request(f"http://127.0.0.1:{house.http_port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


async def pair_with_setup_code(house, alias) -> dict:
    found = discovery(house)
    finish = await found.async_start_pairing(alias)
    paired = await finish(SETUP_CODE)
    data = dict(paired.pairing_data)
    await paired.close()
    return data


def test_pairings_removed_over_http(house):
    """The web page's pairing panel, over HTTP: a controller paired with aiohomekit is removed by
    `DELETE /api/homekit/bridges/1/pairings/{id}`: its open session is closed, its keys no longer
    verify, `GET /api/homekit` no longer lists it, and a fresh pair-setup works; then `DELETE
    …/pairings` removes every pairing. Runs last: it undoes the shared pairing."""
    status, bridge = http(house, "DELETE", "/api/homekit/bridges/1/pairings")  # whatever ran before
    assert status == 200 and bridge["paired"] is False and bridge["controllers"] == [], bridge
    status, body = http(house, "POST", "/api/homekit/bridges/1/setup-code")
    assert status == 409 and "hap.setup_code" in body["error"], body  # this house sets it
    assert http(house, "DELETE", "/api/homekit/bridges/9/pairings")[0] == 404
    status, body = http(house, "DELETE", "/api/homekit/bridges/1/pairings/nobody")
    assert status == 404 and body["kind"] == "not_found", body

    async def body():
        data = await pair_with_setup_code(house, "panel")
        controller_id = data["iOSPairingId"]
        status, listing = http(house, "GET", "/api/homekit")
        first = listing["bridges"][0]
        assert status == 200 and listing["enabled"] is True
        assert first["controllers"] == [{"id": controller_id, "admin": True}] and first["paired"] is True
        assert first["port"] == house.hap_port and first["setup_code"] == SETUP_CODE

        session = reconnected(house.hap_port, data)
        await session.get_characteristics([(1, 9)])  # a verified session, left open
        assert session.connection.is_connected
        status, bridge = http(house, "DELETE", f"/api/homekit/bridges/1/pairings/{urllib.parse.quote(controller_id, safe='')}")
        assert status == 200 and bridge["controllers"] == [] and bridge["paired"] is False, bridge
        deadline = time.monotonic() + 10
        while session.connection.is_connected and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert not session.connection.is_connected, "the removed controller's session should be closed"
        with pytest.raises(HomeKitException):
            await session.get_characteristics([(1, 9)])  # pair-verify with its keys is refused now
        with contextlib.suppress(HomeKitException):  # its reconnection attempts failed the same way
            await session.close()
        assert http(house, "GET", "/api/homekit")[1]["bridges"][0]["controllers"] == []

        again = await pair_with_setup_code(house, "panel-again")  # open to pairing again
        status, listing = http(house, "GET", "/api/homekit")
        assert [c["id"] for c in listing["bridges"][0]["controllers"]] == [again["iOSPairingId"]]
        status, bridge = http(house, "DELETE", "/api/homekit/bridges/1/pairings")
        assert status == 200 and bridge["paired"] is False and bridge["controllers"] == [], bridge
        await pair_with_setup_code(house, "panel-third")  # and again after removing them all

    run(body())
    status, health = http(house, "GET", "/readyz")
    bridges = health["homekit"]["bridges"]
    assert bridges[0]["number"] == 1 and bridges[0]["advertisement"] in ("starting", "advertised", "not_advertised"), health
    for entry in bridges:
        if entry["advertisement"] == "not_advertised":
            assert any(w.startswith(f"HomeKit bridge {entry['number']} is not advertised: ") for w in health["warnings"]), health
    log = (house.workdir / "homegate.log").read_text(errors="replace")
    assert "pairing removed out of band" in log and SETUP_CODE not in log


def test_print_timings():
    print()
    for name, seconds in TIMINGS.items():
        print(f"  {name:45s} {seconds * 1000:8.1f} ms")
