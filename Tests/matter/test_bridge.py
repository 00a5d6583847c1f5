"""homegate's Matter bridge (issue 45) with the Matter SDK's own controller, between two network
namespaces: the shared house (Tests/pyhouse: Mosquitto, the Zigbee2MQTT simulator, `homegate run`
with matter.enabled) runs in namespace A beside avahi; the controller, in B, commissions homegate,
reads the Aggregator's parts with their device types, switches a light and sees the simulated
device's `/set`, gets a device's change and its reachability in a wildcard subscription, and finds
the same endpoints after a restart, and after a power cut (an empty broker, the devices late)."""

import asyncio
import hashlib
import json
import subprocess
import statistics
import sys
import time
from pathlib import Path

import pytest

import conftest
from conftest import PAA_STORE, free_udp_port
from netns import ADDRESS6_A

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pyhouse.house import ROOT, House, free_port, wait_until  # noqa: E402

PASSCODE = 20202021
DISCRIMINATOR = 3850
NODE = 0x5001
FIGURES = {}

# What the demo house (demo/devices.json, demo/mappings) is in Matter: each bridged service by its
# endpoint's UniqueID key, with its device type.
EXPECTED = {
    "hallway_dimmer/lightbulb": 0x0101,  # Dimmable Light
    "garage_door/temperature_sensor": 0x0302,
    "tv_plug/outlet": 0x010A,  # On/Off Plug-in Unit
    "heater_plug/outlet": 0x010A,
    "bulb/lightbulb": 0x010C,  # Color Temperature Light
    "bulb_color_2/lightbulb": 0x010D,  # Extended Color Light
    "weather_sensor/temperature_sensor": 0x0302,
    "weather_sensor/humidity_sensor": 0x0307,
    "power_plug/outlet": 0x010A,
    "kitchen_wall_switch/lightbulb_l1": 0x0100,  # On/Off Light
    "kitchen_wall_switch/lightbulb_l2": 0x0100,
    "front_door_contact/contact_sensor": 0x0015,
    "occupancy_sensor/motion_sensor": 0x0107,
    "desk_lights/lightbulb": 0x010C,
    "curtain/window_covering": 0x0202,  # Window Covering
    "bosch_radiator/thermostat": 0x0301,  # Thermostat
    "button/stateless_programmable_switch": 0x000F,  # Generic Switch
    "button/stateless_programmable_switch_triple": 0x000F,
    "button/stateless_programmable_switch_quadruple": 0x000F,
    "remote/stateless_programmable_switch_on": 0x000F,
    "remote/stateless_programmable_switch_up": 0x000F,
    "remote/stateless_programmable_switch_down": 0x000F,
    "remote/stateless_programmable_switch_off": 0x000F,
    # The actuators of Tests/matter/actuators.json (real definitions from the Zigbee2MQTT corpus).
    "front_door_lock/lock_mechanism": 0x000A,  # Door Lock
    "ceiling_fan/fanv2": 0x002B,  # Fan
    "ceiling_fan/lightbulb": 0x0101,
    "hallway_thermostat/thermostat": 0x0301,  # Thermostat, cooling and heating
    "hallway_thermostat/humidity_sensor": 0x0307,
    "living_room_blind/window_covering": 0x0202,  # Window Covering, lift and tilt
}
# Sensors (pressure, light, smoke) of the demo house, and two devices Tests/matter/devices-sensors.json
# adds for what it lacks: Heiman's HS2AQ-EM air quality monitor and Aqara's SJCGQ11LM leak sensor
# (Zigbee2MQTT definitions from the mappings corpus, each with its source).
EXPECTED.update({
    "weather_sensor/air_pressure_sensor": 0x0305,  # Pressure Sensor
    "occupancy_sensor/light_sensor": 0x0106,  # Light Sensor
    "hallway_smoke_detector/smoke_sensor": 0x0076,  # Smoke CO Alarm
    "air_monitor/temperature_sensor": 0x0302,
    "air_monitor/humidity_sensor": 0x0307,
    "air_monitor/air_quality_sensor": 0x002C,  # Air Quality Sensor
    "bathroom_leak/leak_sensor": 0x0043,  # Water Leak Detector
})
SENSOR_DEVICES = Path(__file__).resolve().parent / "devices-sensors.json"
# The lock's `action` values are not bridged: the Door Lock's state and LockOperation events carry
# its operations (the HomeKit bridge has them as buttons).
LOCK_ACTIONS = [f"front_door_lock/stateless_programmable_switch_{action}" for action in (
    "unknown", "lock", "unlock", "lock_failure_invalid_pin_or_id", "lock_failure_invalid_schedule",
    "unlock_failure_invalid_pin_or_id", "unlock_failure_invalid_schedule", "one_touch_lock", "key_lock", "key_unlock",
    "auto_lock", "schedule_lock", "schedule_unlock", "manual_lock", "manual_unlock", "non_access_user_operational_event")]
ACTUATORS = Path(__file__).resolve().parent / "actuators.json"
# Carbon dioxide: Titan Products' TPZRCO2HT-Z3 room CO2 sensor (the mappings corpus, its source named in
# devices-sensors.json), an Air Quality Sensor with Carbon Dioxide Concentration Measurement; its
# carbon_dioxide_sensor (HomeKit's abnormal above 1,200 ppm) has no endpoint of its own.
EXPECTED.update({
    "office_co2/air_quality_sensor": 0x002C,
    "office_co2/temperature_sensor": 0x0302,
    "office_co2/humidity_sensor": 0x0307,
})


def unique_id(key: str) -> str:
    return hashlib.sha256(key.encode()).digest()[:16].hex()


# An accessory with two or more bridged services is a composed bridged device: a parent endpoint
# (Bridged Node, with Bridged Device Basic Information, keyed "accessory/") whose PartsList names
# its services' endpoints. One with a single service is that service's endpoint, a Bridged Node.
COMPOSED = {accessory for accessory in {key.split("/")[0] for key in EXPECTED}
            if sum(key.startswith(accessory + "/") for key in EXPECTED) > 1}
PARENTS = {f"{accessory}/" for accessory in COMPOSED}
NODES = {key for key in EXPECTED if key.split("/")[0] not in COMPOSED} | PARENTS
BY_UNIQUE_ID = {unique_id(key): key for key in NODES}


class MatterHouse(House):
    """The house in namespace A, homegate's Matter bridge on a fixed UDP port there."""

    def __init__(self, bin_path, workdir, network):
        super().__init__(bin_path, workdir, name="matter-bridge", prefix=["ip", "netns", "exec", network.ns_a], env=network.env)
        self.matter_port = free_udp_port()  # namespace A is empty: free there too

    def environment(self, name="homegate", extra=None):
        # A fixed HTTP port (namespace A is empty but for Mosquitto): `homegate matter window` and
        # `unpair` reach the running homegate through it, as a person's do.
        http_port = next(port for port in iter(free_port, None) if port != self.mqtt_port)
        return super().environment(name, {
            "HOMEGATE_HTTP_LISTEN": f"127.0.0.1:{http_port}",
            "HOMEGATE_MATTER_ENABLED": "true",
            "HOMEGATE_MATTER_PORT": str(self.matter_port),
            "HOMEGATE_MATTER_PASSCODE": str(PASSCODE),
            "HOMEGATE_MATTER_DISCRIMINATOR": str(DISCRIMINATOR),
            **(extra or {}),
        })

    def start_gateway(self, name="homegate", env=None, cwd=None, ready=("Matter bridge serving",), timeout=120):
        return super().start_gateway(name, env, cwd, ready, timeout)

    def start_simulator(self, *arguments, **options):
        """The demo house with the devices it lacks beside it (Tests/matter/devices-sensors.json: an
        air quality monitor and a leak sensor; Tests/matter/actuators.json: a lock, a fan, a cooling
        thermostat, a tilting blind) as one devices file: the last --devices is the one served."""
        merged = self.workdir / "devices.json"
        merged.write_text(json.dumps(json.loads((ROOT / "demo" / "devices.json").read_text())
                                     + json.loads(SENSOR_DEVICES.read_text()) + json.loads(ACTUATORS.read_text())))
        return super().start_simulator("--devices", str(merged), *arguments, **options)


@pytest.fixture(scope="module")
def house(request, network, tmp_path_factory):
    if network is None:
        pytest.skip(f"no network namespaces: {conftest.NETWORK_REASON}")
    bin_path = request.config.getoption("--bin-path")
    with MatterHouse(bin_path, tmp_path_factory.mktemp("matter-house"), network) as running:
        try:
            running.start_mosquitto()
            running.start_simulator(groups=True)
            running.start_gateway()
            yield running
        except BaseException:
            print(running.report())
            raise
    if FIGURES:
        print("\nMatter bridge figures: " + ", ".join(f"{name} {value}" for name, value in FIGURES.items()))


def pairing_codes(house) -> dict:
    """`homegate matter pairing` as a person runs it beside the running homegate, parsed."""
    printed = house.run_homegate("matter", "pairing")
    assert printed.returncode == 0, printed.stderr
    fields = {key: value.strip() for key, value in
              (line.split(":", 1) for line in printed.stdout.splitlines() if ":" in line and not line.startswith(" "))}
    fields["text"] = printed.stdout
    return fields


@pytest.fixture(scope="module")
def controller(house, fabric_admin, loop):
    """Commissioned as a person does: the QR code `homegate matter pairing` prints, the bridge found
    by its long discriminator over DNS-SD (avahi in namespace A), PASE, attestation, CASE."""
    controller = fabric_admin.NewController(paaTrustStorePath=PAA_STORE)
    qr = pairing_codes(house)["QR code"]
    started = time.monotonic()
    assert loop.run_until_complete(controller.CommissionWithCode(qr, NODE)) == NODE
    FIGURES["commissioning from the QR code (discovery included)"] = f"{1000 * (time.monotonic() - started):.0f} ms"
    yield controller
    controller.Shutdown()


def read(loop, controller, attributes):
    return loop.run_until_complete(controller.ReadAttribute(NODE, attributes))


def endpoints(house, loop, controller) -> dict:
    """Each bridged service's endpoint by its key ("accessory/service") and each composed device's
    parent by its accessory's ("accessory/"), once every expected one is served: a Bridged Node by
    its UniqueID, a composed device's child by its parent's PartsList and its TagList's label."""
    import chip.clusters as Clusters
    bridged, descriptor = Clusters.BridgedDeviceBasicInformation, Clusters.Descriptor
    labels = {(accessory["id"], service.get("name") or service["id"]): service["id"]
              for accessory in accessories(house) for service in accessory["services"]}

    def listed():
        ids = read(loop, controller, [(bridged.Attributes.UniqueID)])
        found = {BY_UNIQUE_ID.get(ids[endpoint][bridged][bridged.Attributes.UniqueID]): endpoint for endpoint in ids}
        found.pop(None, None)
        tree = read(loop, controller, [(descriptor.Attributes.PartsList), (descriptor.Attributes.TagList)])
        for key in PARENTS & set(found):
            for child in tree[found[key]][descriptor][descriptor.Attributes.PartsList]:
                for tag in tree.get(child, {}).get(descriptor, {}).get(descriptor.Attributes.TagList) or []:
                    service = labels.get((key[:-1], tag.label))
                    if service:
                        found[key + service] = child
        return found if set(EXPECTED) | PARENTS <= set(found) else None

    return wait_until(listed, 60, "every device of the demo house bridged", interval=0.5)


def accessories(house) -> list:
    """The accessories as homegate has them (`homegate/request/accessories`)."""
    responses = house.subscribe("homegate/response/accessories")
    try:
        house.publish("homegate/request/accessories", '{"transaction":"tree"}')
        return responses.message("homegate/response/accessories")["data"]["accessories"]
    finally:
        responses.close()


def battery_powered(house) -> set:
    """The accessories with a battery service, as homegate has them (`homegate/request/accessories`)."""
    responses = house.subscribe("homegate/response/accessories")
    try:
        house.publish("homegate/request/accessories", '{"transaction":"batteries"}')
        tree = responses.message("homegate/response/accessories")["data"]
    finally:
        responses.close()
    return {a["id"] for a in tree["accessories"] if any(s["type"] == "battery_service" for s in a["services"])}


def test_the_house_is_an_aggregator_of_bridged_devices_with_their_device_types(house, controller, loop):
    import chip.clusters as Clusters
    descriptor, bridged = Clusters.Descriptor, Clusters.BridgedDeviceBasicInformation
    numbers = endpoints(house, loop, controller)
    powered = battery_powered(house)
    assert {"weather_sensor", "hallway_smoke_detector", "bosch_radiator", "button"} <= powered and "bulb" not in powered
    read_back = read(loop, controller, [(descriptor.Attributes.PartsList), (descriptor.Attributes.DeviceTypeList)])
    parts = sorted(numbers.values())  # every descendant of the Aggregator: parents and their children alike
    assert len(set(parts)) == len(parts)
    assert read_back[0][descriptor][descriptor.Attributes.PartsList] == [1, *parts]
    assert read_back[1][descriptor][descriptor.Attributes.PartsList] == parts
    assert [t.deviceType for t in read_back[0][descriptor][descriptor.Attributes.DeviceTypeList]] == [0x0016]  # Root Node
    assert [t.deviceType for t in read_back[1][descriptor][descriptor.Attributes.DeviceTypeList]] == [0x000E]  # Aggregator

    def types(number):
        return [t.deviceType for t in read_back[number][descriptor][descriptor.Attributes.DeviceTypeList]]

    for key, device_type in EXPECTED.items():
        accessory = key.split("/")[0]
        power_source = [0x0011] if accessory in powered else []  # on the Bridged Node of a device with a battery
        if accessory in COMPOSED:
            assert types(numbers[key]) == [device_type], (key, types(numbers[key]))  # a child: its device type alone
            assert read_back[numbers[key]][descriptor][descriptor.Attributes.PartsList] == []
        else:
            assert types(numbers[key]) == [device_type, 0x0013, *power_source], (key, types(numbers[key]))  # and Bridged Node
    for accessory in COMPOSED:
        parent, power_source = numbers[accessory + "/"], [0x0011] if accessory in powered else []
        assert types(parent) == [0x0013, *power_source], (accessory, types(parent))
        children = sorted(number for key, number in numbers.items() if key.startswith(accessory + "/") and key in EXPECTED)
        assert read_back[parent][descriptor][descriptor.Attributes.PartsList] == children, accessory
    assert {"weather_sensor", "ceiling_fan", "remote", "kitchen_wall_switch"} <= COMPOSED and "front_door_lock" not in COMPOSED
    assert not any(key in numbers for key in LOCK_ACTIONS)  # the lock alone, no switches beside it
    # Bridged Device Basic Information on the Bridged Nodes alone: single endpoints and parents.
    unique_ids = read(loop, controller, [(bridged.Attributes.UniqueID)])
    assert sorted(unique_ids) == sorted(numbers[key] for key in NODES)
    # Two children of one type are told apart by their TagList: a Common Number and the service's name.
    tags = read(loop, controller, [(numbers[f"remote/stateless_programmable_switch_{button}"], descriptor.Attributes.TagList)
                                   for button in ("on", "up", "down", "off")])
    assert sorted((tag.namespaceID, tag.tag) for clusters in tags.values() for tag in clusters[descriptor][descriptor.Attributes.TagList]) \
        == [(0x07, 1), (0x07, 2), (0x07, 3), (0x07, 4)]
    labels = read(loop, controller, [(bridged.Attributes.NodeLabel), (bridged.Attributes.Reachable), (bridged.Attributes.VendorName)])
    assert labels[numbers["bulb/lightbulb"]][bridged][bridged.Attributes.NodeLabel] == "Desk Lamp"
    assert labels[numbers["bulb/lightbulb"]][bridged][bridged.Attributes.VendorName] == "IKEA"
    assert labels[numbers["bulb/lightbulb"]][bridged][bridged.Attributes.Reachable] is True
    assert labels[numbers["power_plug/outlet"]][bridged][bridged.Attributes.NodeLabel] == "Coffee Machine"
    names = {accessory["id"]: accessory["name"] for accessory in accessories(house)}
    assert labels[numbers["weather_sensor/"]][bridged][bridged.Attributes.NodeLabel] == names["weather_sensor"][:32]
    ct = read(loop, controller, [(numbers["bulb/lightbulb"], Clusters.ColorControl.Attributes.ColorTempPhysicalMinMireds),
                                 (numbers["bulb/lightbulb"], Clusters.ColorControl.Attributes.ColorTempPhysicalMaxMireds)])
    color = ct[numbers["bulb/lightbulb"]][Clusters.ColorControl]
    assert (color[Clusters.ColorControl.Attributes.ColorTempPhysicalMinMireds], color[Clusters.ColorControl.Attributes.ColorTempPhysicalMaxMireds]) == (250, 454)

    # The health report says it serves, where, with how many endpoints and fabrics, and what avahi
    # advertises: the fabric's operational service (health looks at avahi's states each second).
    deadline = time.monotonic() + 10
    while True:
        responses = house.subscribe("homegate/response/health")
        try:
            house.publish("homegate/request/health", '{"transaction":"matter"}')
            health = responses.message("homegate/response/health")["data"]
        finally:
            responses.close()
        matter = dict(health["matter"])
        advertisements = matter.pop("advertisements", [])
        if [a["advertised"] for a in advertisements if a["service"].endswith("._matter._tcp")] == [True] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert matter == {"serving": True, "port": house.matter_port, "endpoints": len(numbers), "fabrics": 1}
    assert [a["service"].split(".", 1)[1] for a in advertisements] == ["_matter._tcp"], advertisements
    assert advertisements[0]["advertised"] is True, advertisements


def test_homegate_matter_pairing_prints_the_codes_the_sdk_reads_and_the_fabric(house, controller):
    from chip.setup_payload import SetupPayload
    fields = pairing_codes(house)
    manual = SetupPayload().ParseManualPairingCode(fields["manual pairing code"]).attributes
    assert (int(manual["SetUpPINCode"]), int(manual["Short discriminator"])) == (PASSCODE, DISCRIMINATOR >> 8)
    qr = SetupPayload().ParseQrCode(fields["QR code"]).attributes
    assert (int(qr["SetUpPINCode"]), int(qr["Long discriminator"]), int(qr["VendorID"])) == (PASSCODE, DISCRIMINATOR, 0xFFF1)
    assert fields["fabrics"] == "1"
    assert "vendor 0xFFF1" in fields["text"] and f"node 0x{NODE:X}" in fields["text"]
    # doctor names the fabric as pairing does.
    doctor = house.run_homegate("doctor", "--timeout", "2")
    assert f"on 1 fabric: 1: Matter test vendor 1 (vendor 0xFFF1), node 0x{NODE:X}" in doctor.stdout, doctor.stdout


def test_invokes_reach_the_simulated_device_as_one_set_each(house, controller, loop):
    import chip.clusters as Clusters
    on_off, level, color = Clusters.OnOff, Clusters.LevelControl, Clusters.ColorControl
    lamp = endpoints(house, loop, controller)["bulb/lightbulb"]
    subscription = house.subscribe("zigbee2mqtt/bulb/set")
    latencies = []
    try:
        for round in range(10):
            command = on_off.Commands.On() if round % 2 == 0 else on_off.Commands.Off()
            started = time.monotonic()
            loop.run_until_complete(controller.SendCommand(NODE, lamp, command))
            sent = subscription.message("zigbee2mqtt/bulb/set")
            latencies.append(1000 * (time.monotonic() - started))
            assert sent == {"state": "ON" if round % 2 == 0 else "OFF"}
        FIGURES["invoke -> /set p50 (incl. mosquitto_sub)"] = f"{statistics.median(latencies):.1f} ms"

        # The change comes back from the device, credited to Matter on homegate's own event topic.
        events = house.subscribe("homegate/event/bulb/lightbulb/on")
        try:
            # Toggle goes by the bridge's value: once the device has echoed the last Off.
            wait_until(lambda: read(loop, controller, [(lamp, on_off.Attributes.OnOff)])[lamp][on_off][on_off.Attributes.OnOff] is False,
                       10, "the lamp off")
            loop.run_until_complete(controller.SendCommand(NODE, lamp, on_off.Commands.Toggle()))
            assert subscription.message("zigbee2mqtt/bulb/set") == {"state": "ON"}  # it was off: Toggle is On
            event = events.message("homegate/event/bulb/lightbulb/on")
            assert event["value"] is True and event["source"] == "matter"
        finally:
            events.close()

        loop.run_until_complete(controller.SendCommand(NODE, lamp, level.Commands.MoveToLevelWithOnOff(level=127, transitionTime=0, optionsMask=0, optionsOverride=0)))
        assert subscription.message("zigbee2mqtt/bulb/set") == {"state": "ON", "brightness": 127}  # 50 %, both in one /set
        loop.run_until_complete(controller.SendCommand(NODE, lamp, color.Commands.MoveToColorTemperature(colorTemperatureMireds=300, transitionTime=0, optionsMask=0, optionsOverride=0)))
        assert subscription.message("zigbee2mqtt/bulb/set") == {"color_temp": 300}
    finally:
        subscription.close()

    def lamp_state():
        values = read(loop, controller, [(lamp, on_off.Attributes.OnOff), (lamp, level.Attributes.CurrentLevel), (lamp, color.Attributes.ColorTemperatureMireds)])[lamp]
        return (values[on_off][on_off.Attributes.OnOff], values[level][level.Attributes.CurrentLevel],
                values[color][color.Attributes.ColorTemperatureMireds]) == (True, 127, 300)

    wait_until(lamp_state, 10, "the lamp's attributes to follow the device")

    # Out of the bulb's range (250-454 mireds): refused before anything goes out.
    with pytest.raises(Exception, match="(?i)constraint|0x87"):
        loop.run_until_complete(controller.SendCommand(NODE, lamp, color.Commands.MoveToColorTemperature(colorTemperatureMireds=100, transitionTime=0, optionsMask=0, optionsOverride=0)))


def test_a_device_change_and_its_reachability_reach_a_wildcard_subscription(house, controller, loop):
    import chip.clusters as Clusters
    boolean, bridged = Clusters.BooleanState, Clusters.BridgedDeviceBasicInformation
    numbers = endpoints(house, loop, controller)
    door = numbers["front_door_contact/contact_sensor"]
    # As Home Assistant's Matter server subscribes: every attribute and every event.
    subscription = loop.run_until_complete(controller.Read(NODE, attributes=["*"], events=[("*", 1)], reportInterval=(0, 30)))
    try:
        # The events as the SDK's thread takes them in (its cache is not safe to read from here while
        # a report comes in).
        received = []
        subscription.SetEventUpdateCallback(lambda event, transaction: received.append(event))

        def value(cluster, attribute):
            return subscription.GetAttributes()[door][cluster][attribute]

        def report(state, wanted):
            reported = asyncio.Event()
            subscription.SetAttributeUpdateCallback(
                lambda path, transaction: loop.call_soon_threadsafe(reported.set) if wanted(path, transaction) else None)
            started = time.monotonic()
            house.simulator(*state)
            loop.run_until_complete(asyncio.wait_for(reported.wait(), 10))
            return 1000 * (time.monotonic() - started)

        def at(endpoint, attribute, expected):
            # The value too: a report may carry the attribute unchanged (another of its cluster's
            # attributes changed), which is not the report of this change. The cluster too: the
            # door's Power Source has an attribute 0 of its own (Status 1, which Python takes for True).
            return lambda path, transaction: ((path.Path.EndpointId, path.Path.ClusterId, path.Path.AttributeId)
                                              == (endpoint, attribute.cluster_id, attribute.attribute_id)
                                              and transaction.GetAttribute(path) == expected)

        latencies = []
        closed = value(boolean, boolean.Attributes.StateValue)
        for _ in range(6):
            closed = not closed  # always a change, whatever the door was
            latencies.append(report(("report", {"id": "front_door_contact", "state": {"contact": closed}}), at(door, boolean.Attributes.StateValue, closed)))
            assert value(boolean, boolean.Attributes.StateValue) is closed  # Matter: true in contact
        FIGURES["device change -> subscription report p50 (incl. mosquitto_pub)"] = f"{statistics.median(latencies):.1f} ms"

        assert value(bridged, bridged.Attributes.Reachable) is True
        for state, reachable in (("offline", False), ("online", True)):
            report(("availability", {"id": "front_door_contact", "state": state}), at(door, bridged.Attributes.Reachable, reachable))
            assert value(bridged, bridged.Attributes.Reachable) is reachable

        def reachable_changes():
            return [event.Data.reachableNewValue for event in list(received)
                    if event.Header.EndpointId == door and event.Header.EventId == bridged.Events.ReachableChanged.event_id]

        wait_until(lambda: reachable_changes()[-2:] == [False, True], 10, "ReachableChanged events, false then true")

        # A composed device's reachability is its parent's, the one endpoint with Bridged Device Basic Information.
        weather = numbers["weather_sensor/"]
        for state, reachable in (("offline", False), ("online", True)):
            report(("availability", {"id": "weather_sensor", "state": state}), at(weather, bridged.Attributes.Reachable, reachable))
            assert subscription.GetAttributes()[weather][bridged][bridged.Attributes.Reachable] is reachable
        wait_until(lambda: [event.Data.reachableNewValue for event in list(received) if event.Header.EndpointId == weather
                            and event.Header.EventId == bridged.Events.ReachableChanged.event_id][-2:] == [False, True],
                   10, "the weather sensor's ReachableChanged events on its parent")
        children = {number for key, number in numbers.items() if key.startswith("weather_sensor/") and number != weather}
        assert len(children) == 3 and not any(event.Header.EventId == bridged.Events.ReachableChanged.event_id
                                              and event.Header.EndpointId in children for event in list(received))
    finally:
        subscription.Shutdown()


def test_plugs_switches_covers_and_sensors_are_driven_and_read(house, controller, loop):
    import chip.clusters as Clusters
    on_off, covering = Clusters.OnOff, Clusters.WindowCovering
    numbers = endpoints(house, loop, controller)
    subscription = house.subscribe("zigbee2mqtt/+/set")
    try:
        loop.run_until_complete(controller.SendCommand(NODE, numbers["power_plug/outlet"], on_off.Commands.On()))
        assert subscription.message("zigbee2mqtt/power_plug/set") == {"state": "ON"}
        loop.run_until_complete(controller.SendCommand(NODE, numbers["kitchen_wall_switch/lightbulb_l2"], on_off.Commands.On()))
        assert subscription.message("zigbee2mqtt/kitchen_wall_switch/set") == {"state_l2": "ON"}
        # Matter's lift is hundredths of a percent closed, HomeKit's position percent open.
        curtain = numbers["curtain/window_covering"]
        loop.run_until_complete(controller.SendCommand(NODE, curtain, covering.Commands.GoToLiftPercentage(liftPercent100thsValue=2500)))
        assert subscription.message("zigbee2mqtt/curtain/set") == {"position": 75}
        loop.run_until_complete(controller.SendCommand(NODE, curtain, covering.Commands.StopMotion()))
        assert subscription.message("zigbee2mqtt/curtain/set") == {"state": "STOP"}
        loop.run_until_complete(controller.SendCommand(NODE, curtain, covering.Commands.UpOrOpen()))
        assert subscription.message("zigbee2mqtt/curtain/set") == {"position": 100}

        # A device away: the invoke is refused, nothing goes out.
        bridged, plug = Clusters.BridgedDeviceBasicInformation, numbers["power_plug/outlet"]
        house.simulator("availability", {"id": "power_plug", "state": "offline"})
        wait_until(lambda: read(loop, controller, [(plug, bridged.Attributes.Reachable)])[plug][bridged][bridged.Attributes.Reachable] is False,
                   10, "the plug not reachable")
        with pytest.raises(Exception, match="(?i)failure|0x1"):
            loop.run_until_complete(controller.SendCommand(NODE, plug, on_off.Commands.On()))
        house.simulator("availability", {"id": "power_plug", "state": "online"})
        wait_until(lambda: read(loop, controller, [(plug, bridged.Attributes.Reachable)])[plug][bridged][bridged.Attributes.Reachable] is True,
                   10, "the plug reachable again")
        loop.run_until_complete(controller.SendCommand(NODE, plug, on_off.Commands.Off()))
        assert subscription.message("zigbee2mqtt/power_plug/set") == {"state": "OFF"}  # not the refused ON: nothing went out while away
    finally:
        subscription.close()

    house.simulator("report", {"id": "weather_sensor", "state": {"temperature": 21.5, "humidity": 48}})
    house.simulator("report", {"id": "occupancy_sensor", "state": {"occupancy": True}})
    temperature, humidity = Clusters.TemperatureMeasurement, Clusters.RelativeHumidityMeasurement
    occupancy = Clusters.OccupancySensing

    def sensors():
        values = read(loop, controller, [(numbers["weather_sensor/temperature_sensor"], temperature.Attributes.MeasuredValue),
                                         (numbers["weather_sensor/humidity_sensor"], humidity.Attributes.MeasuredValue),
                                         (numbers["occupancy_sensor/motion_sensor"], occupancy.Attributes.Occupancy)])
        return (values[numbers["weather_sensor/temperature_sensor"]][temperature][temperature.Attributes.MeasuredValue],
                values[numbers["weather_sensor/humidity_sensor"]][humidity][humidity.Attributes.MeasuredValue],
                values[numbers["occupancy_sensor/motion_sensor"]][occupancy][occupancy.Attributes.Occupancy])

    wait_until(lambda: sensors() == (2150, 4800, 1), 10, "the sensors' readings in hundredths, occupancy as its bitmap")

    def lift():
        values = read(loop, controller, [(curtain, covering.Attributes.CurrentPositionLiftPercent100ths)])
        return values[curtain][covering][covering.Attributes.CurrentPositionLiftPercent100ths]

    wait_until(lambda: lift() == 0, 10, "the curtain's lift to follow the simulated device: open")


def test_a_thermostat_is_read_written_and_nudged(house, controller, loop):
    import chip.clusters as Clusters
    thermostat = Clusters.Thermostat
    radiator = endpoints(house, loop, controller)["bosch_radiator/thermostat"]

    def values():
        return read(loop, controller, [(radiator, thermostat.Attributes.LocalTemperature), (radiator, thermostat.Attributes.SystemMode),
                                       (radiator, thermostat.Attributes.OccupiedHeatingSetpoint)])[radiator][thermostat]

    now = values()
    assert (now[thermostat.Attributes.LocalTemperature], now[thermostat.Attributes.SystemMode]) == (2050, thermostat.Enums.SystemModeEnum.kHeat)
    subscription = house.subscribe("zigbee2mqtt/bosch_radiator/set")
    try:
        # Matter writes the setpoint as an attribute, in hundredths of °C.
        written = loop.run_until_complete(controller.WriteAttribute(NODE, [(radiator, thermostat.Attributes.OccupiedHeatingSetpoint(2250))]))
        assert [result.Status for result in written] == [0]
        assert subscription.message("zigbee2mqtt/bosch_radiator/set") == {"occupied_heating_setpoint": 22.5}
        # SetpointRaiseLower: heating, up 0.5 °C from the setpoint the device took.
        wait_until(lambda: values()[thermostat.Attributes.OccupiedHeatingSetpoint] == 2250, 10, "the setpoint to follow the device")
        loop.run_until_complete(controller.SendCommand(NODE, radiator, thermostat.Commands.SetpointRaiseLower(mode=0, amount=5)))
        assert subscription.message("zigbee2mqtt/bosch_radiator/set") == {"occupied_heating_setpoint": 23}
        # Out of the valve's range (5–30 °C): refused, nothing sent.
        refused = loop.run_until_complete(controller.WriteAttribute(NODE, [(radiator, thermostat.Attributes.OccupiedHeatingSetpoint(4000))]))
        assert [int(result.Status) for result in refused] == [0x87]  # CONSTRAINT_ERROR
        # The valve heats and nothing else (its target_heating_cooling_state takes 1 alone): Off and Cool refused.
        modes = thermostat.Enums.SystemModeEnum
        for mode, status in ((modes.kOff, 0x87), (modes.kCool, 0x87), (modes.kHeat, 0)):
            written = loop.run_until_complete(controller.WriteAttribute(NODE, [(radiator, thermostat.Attributes.SystemMode(mode))]))
            assert [int(result.Status) for result in written] == [status], mode
        assert "heat" in subscription.message("zigbee2mqtt/bosch_radiator/set").values()
    finally:
        subscription.close()
    wait_until(lambda: values()[thermostat.Attributes.OccupiedHeatingSetpoint] == 2300, 10, "the setpoint to follow the device")


def test_each_button_press_is_a_switch_event(house, controller, loop):
    import chip.clusters as Clusters
    switch = Clusters.Switch
    button = endpoints(house, loop, controller)["button/stateless_programmable_switch"]
    subscription = loop.run_until_complete(controller.Read(NODE, events=[(button, switch, 1)], reportInterval=(0, 30)))
    try:
        # The events as the SDK's thread takes them in (its cache is not safe to read from here while
        # a report comes in); the priming report is in before the presses, and not in this list.
        events = []
        subscription.SetEventUpdateCallback(lambda event, transaction: events.append(event))

        def presses():
            return [(type(event.Data).__name__, getattr(event.Data, "totalNumberOfPressesCounted", None))
                    for event in list(events) if event.Header.EndpointId == button]

        for action in ("single", "double", "hold", "single"):
            house.simulator("action", {"id": "button", "action": action})
        expected = [("InitialPress", None), ("ShortRelease", None), ("MultiPressComplete", 1),
                    ("InitialPress", None), ("ShortRelease", None), ("MultiPressOngoing", None), ("InitialPress", None),
                    ("ShortRelease", None), ("MultiPressComplete", 2),
                    ("InitialPress", None), ("LongPress", None), ("LongRelease", None),
                    ("InitialPress", None), ("ShortRelease", None), ("MultiPressComplete", 1)]
        wait_until(lambda: presses() == expected, 10, "every press as its events, in order (the same press twice too)")
    finally:
        subscription.Shutdown()


def test_endpoints_stay_put_after_a_restart_and_a_power_cut(house, controller, loop):
    import chip.clusters as Clusters
    bridged = Clusters.BridgedDeviceBasicInformation
    before = endpoints(house, loop, controller)

    house.stop_gateway()
    house.start_gateway()
    controller.ExpireSessions(NODE)  # the old session died with the process: CASE again, no recommissioning
    assert endpoints(house, loop, controller) == before

    # A power cut: the broker comes back empty and the devices are late. The known house is served
    # from the start, unchanged, every device not reachable until it reports.
    house.stop_gateway()
    house.stop("simulator")
    house.stop("mosquitto")
    house.start_mosquitto(port=house.mqtt_port)
    house.start_gateway()
    controller.ExpireSessions(NODE)
    assert endpoints(house, loop, controller) == before
    reachable = read(loop, controller, [(bridged.Attributes.Reachable)])
    for key in ("bulb/lightbulb", "power_plug/outlet", "front_door_contact/contact_sensor"):  # Zigbee devices, not heard from yet
        assert reachable[before[key]][bridged][bridged.Attributes.Reachable] is False, key
    house.start_simulator(groups=True)

    def back():
        values = read(loop, controller, [(before["power_plug/outlet"], bridged.Attributes.Reachable)])
        return values[before["power_plug/outlet"]][bridged][bridged.Attributes.Reachable] is True

    wait_until(back, 60, "the plug reachable once its device reports")
    assert endpoints(house, loop, controller) == before


def test_a_taken_port_never_stops_the_house(request, tmp_path):
    """Another program on the bridge's UDP port: homegate runs on without the bridge, says why in
    the log and the health report, and serves once the port is free."""
    import socket
    holder = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    holder.bind(("::", 0))
    port = holder.getsockname()[1]
    try:
        with House(request.config.getoption("--bin-path"), tmp_path / "house", name="matter-port") as house:
            house.start_mosquitto()
            house.start_gateway(env={"HOMEGATE_MATTER_ENABLED": "true", "HOMEGATE_MATTER_PORT": str(port)},
                                ready=("the Matter bridge cannot serve",))
            responses = house.subscribe("homegate/response/health")
            try:
                house.publish("homegate/request/health", '{"transaction":"port"}')
                health = responses.message("homegate/response/health")["data"]
            finally:
                responses.close()
            assert health["ready"] is True and health["matter"]["serving"] is False
            assert any("the Matter bridge does not serve" in warning for warning in health["warnings"])
            holder.close()
            wait_until(lambda: "Matter bridge serving" in house.log(), 30, "the bridge to serve once the port is free")
    finally:
        holder.close()


def reachable_light(house, loop, controller, key):
    """The light's endpoint once it is reachable (the devices come back late after the power cut
    above): its Bridged Node's Reachable, a composed device's parent's."""
    import chip.clusters as Clusters
    bridged = Clusters.BridgedDeviceBasicInformation
    numbers = endpoints(house, loop, controller)
    number, node = numbers[key], numbers.get(key.split("/")[0] + "/", numbers[key])
    wait_until(lambda: read(loop, controller, [(node, bridged.Attributes.Reachable)])[node][bridged][bridged.Attributes.Reachable] is True,
               60, f"{key} reachable")
    return number


def next_message(subscription):
    """(topic, payload) of the next message the subscription gets, whatever its topic."""
    line = subscription.wait(lambda line: not line.startswith(("Client ", "Subscribed")), "the next message")
    topic, payload = line.split(" ", 1)
    return topic, json.loads(payload)


def test_a_colour_bulb_is_an_extended_color_light_by_hue_saturation_xy_and_temperature(house, controller, loop):
    import chip.clusters as Clusters
    color, descriptor = Clusters.ColorControl, Clusters.Descriptor
    bulb = reachable_light(house, loop, controller, "bulb_color_2/lightbulb")
    values = read(loop, controller, [(bulb, descriptor.Attributes.DeviceTypeList), (bulb, color.Attributes.ColorCapabilities),
                                     (bulb, color.Attributes.FeatureMap), (bulb, color.Attributes.AcceptedCommandList),
                                     (bulb, Clusters.Identify.Attributes.IdentifyType)])[bulb]
    assert [t.deviceType for t in values[descriptor][descriptor.Attributes.DeviceTypeList]] == [0x010D, 0x0013]
    assert values[color][color.Attributes.ColorCapabilities] == 0x19 == values[color][color.Attributes.FeatureMap]  # HS, XY, CT
    assert set(values[color][color.Attributes.AcceptedCommandList]) == {*range(0x0A + 1), 0x47, 0x4B, 0x4C}
    assert values[Clusters.Identify][Clusters.Identify.Attributes.IdentifyType] == 1  # light output

    def state():
        now = read(loop, controller, [(bulb, color.Attributes.CurrentHue), (bulb, color.Attributes.CurrentSaturation),
                                      (bulb, color.Attributes.ColorMode), (bulb, color.Attributes.EnhancedColorMode),
                                      (bulb, color.Attributes.CurrentX), (bulb, color.Attributes.CurrentY)])[bulb][color]
        return (now[color.Attributes.CurrentHue], now[color.Attributes.CurrentSaturation], now[color.Attributes.ColorMode],
                now[color.Attributes.EnhancedColorMode], now[color.Attributes.CurrentX], now[color.Attributes.CurrentY])

    def invoke(command):
        loop.run_until_complete(controller.SendCommand(NODE, bulb, command))

    options = {"optionsMask": 0, "optionsOverride": 0}
    subscription = house.subscribe("zigbee2mqtt/bulb_color_2/set")
    try:
        invoke(Clusters.OnOff.Commands.On())  # Step and Move are ignored while a light is off
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"state": "ON"}
        # bulb_color_2 takes hue and saturation natively: both in one /set, in degrees and percent.
        invoke(color.Commands.MoveToHueAndSaturation(hue=85, saturation=254, transitionTime=0, **options))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"color": {"hue": 120, "saturation": 100}}
        wait_until(lambda: state()[:4] == (85, 254, 0, 0), 10, "hue and saturation to follow the device, in hue/saturation mode")
        green = state()[4:]
        invoke(color.Commands.MoveToHue(hue=169, direction=0, transitionTime=0, **options))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"color": {"hue": 240, "saturation": 100}}
        invoke(color.Commands.MoveToSaturation(saturation=127, transitionTime=0, **options))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"color": {"hue": 240, "saturation": 50}}
        wait_until(lambda: state()[:3] == (169, 127, 0) and state()[4:] != green, 10, "CurrentX/CurrentY to follow the colour")
        # XY as the house takes colour: green's x and y come back as green's hue and saturation.
        invoke(color.Commands.MoveToColor(colorX=green[0], colorY=green[1], transitionTime=0, **options))
        sent = subscription.message("zigbee2mqtt/bulb_color_2/set")["color"]
        assert abs(sent["hue"] - 120) <= 1 and sent["saturation"] >= 99, sent
        # A colour temperature puts the light in colour-temperature mode, a colour back in hue/saturation.
        invoke(color.Commands.MoveToColorTemperature(colorTemperatureMireds=300, transitionTime=0, **options))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"color_temp": 300}
        wait_until(lambda: state()[2:4] == (2, 2), 10, "ColorMode and EnhancedColorMode: colour temperature")
        invoke(color.Commands.MoveToHueAndSaturation(hue=0, saturation=254, transitionTime=0, **options))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"color": {"hue": 0, "saturation": 100}}
        wait_until(lambda: state()[:4] == (0, 254, 0, 0), 10, "ColorMode: hue/saturation again")
        # Steps are jumps from the house's value: hue wraps around.
        invoke(color.Commands.StepHue(stepMode=3, stepSize=127, transitionTime=0, **options))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"color": {"hue": 180, "saturation": 100}}
    finally:
        subscription.close()
    # A colour-temperature bulb has no colour commands.
    lamp = endpoints(house, loop, controller)["bulb/lightbulb"]
    with pytest.raises(Exception, match="(?i)unsupported|0x81"):
        loop.run_until_complete(controller.SendCommand(NODE, lamp, color.Commands.MoveToHue(hue=0, direction=0, transitionTime=0, **options)))


def test_moves_ramp_at_their_rate_until_a_stop_or_their_end_and_steps_jump(house, controller, loop):
    import chip.clusters as Clusters
    level, color = Clusters.LevelControl, Clusters.ColorControl
    bulb = reachable_light(house, loop, controller, "bulb_color_2/lightbulb")
    topic = "zigbee2mqtt/bulb_color_2/set"
    options = {"optionsMask": 0, "optionsOverride": 0}

    def invoke(command):
        loop.run_until_complete(controller.SendCommand(NODE, bulb, command))

    def current_level():
        return read(loop, controller, [(bulb, level.Attributes.CurrentLevel)])[bulb][level][level.Attributes.CurrentLevel]

    subscription = house.subscribe(topic)
    try:
        invoke(level.Commands.MoveToLevelWithOnOff(level=127, transitionTime=0, **options))
        assert subscription.message(topic) == {"state": "ON", "brightness": 127}
        # A TransitionTime above 0 goes to the light as Zigbee2MQTT's transition, in seconds (0 leaves the light's own).
        invoke(color.Commands.MoveToColorTemperature(colorTemperatureMireds=300, transitionTime=25, **options))
        assert subscription.message(topic) == {"color_temp": 300, "transition": 2.5}
        wait_until(lambda: current_level() == 127, 10, "the level to follow the device")
        # Step: a jump of 64 levels from 127, which the light runs in its TransitionTime.
        invoke(level.Commands.Step(stepMode=0, stepSize=64, transitionTime=10, **options))
        assert subscription.message(topic) == {"brightness": 191, "transition": 1}
        wait_until(lambda: current_level() == 191, 10, "the level after the step")

        # Move down at 50 levels a second: steps at most every 250 ms until the Stop. A hue after the
        # Stop marks where the Move's steps end: the bridge's writes go through one ordered queue, and
        # the Stop ends the Move before anything after it is queued, so no step can follow the hue.
        started = time.monotonic()
        invoke(level.Commands.Move(moveMode=1, rate=50, **options))
        steps = [subscription.message(topic)["brightness"]]
        steps.append(subscription.message(topic)["brightness"])
        invoke(level.Commands.Stop(**options))
        elapsed = time.monotonic() - started
        invoke(color.Commands.MoveToHue(hue=0, direction=0, transitionTime=0, **options))
        while "color" not in (message := subscription.message(topic)):
            steps.append(message["brightness"])
        assert steps == sorted(steps, reverse=True) and len(set(steps)) == len(steps) and steps[-1] < 191, steps
        assert len(steps) <= elapsed / 0.25 + 1, (steps, elapsed)  # never more than one step per 250 ms
        FIGURES["level Move steps (rate 50/s, 250 ms apart at most)"] = f"{len(steps)} in {1000 * elapsed:.0f} ms"

        # MoveWithOnOff up at full rate ends by itself at the top; a colour-temperature Move at the bulb's end.
        invoke(level.Commands.MoveWithOnOff(moveMode=0, rate=254, **options))
        while (message := subscription.message(topic)) != {"brightness": 254}:
            assert message["brightness"] < 254
        # A marker of another cluster (it does not end a level Move): the Move's next message. A Move
        # is ended in the same step that queues its end, and the writes keep their order, so a step
        # after its end would come before the marker.
        invoke(color.Commands.MoveToColorTemperature(colorTemperatureMireds=300, transitionTime=0, **options))
        assert subscription.message(topic) == {"color_temp": 300}
        wait_until(lambda: read(loop, controller, [(bulb, color.Attributes.ColorTemperatureMireds)])[bulb][color][color.Attributes.ColorTemperatureMireds] == 300,
                   10, "the colour temperature to follow the device")
        invoke(color.Commands.MoveColorTemperature(moveMode=1, rate=1000, colorTemperatureMinimumMireds=0,
                                                   colorTemperatureMaximumMireds=400, **options))
        while (message := subscription.message(topic)) != {"color_temp": 400}:
            assert message["color_temp"] < 400
        invoke(level.Commands.MoveToLevel(level=254, transitionTime=0, **options))  # the marker, as above: a level command
        assert subscription.message(topic) == {"brightness": 254}
        wait_until(lambda: read(loop, controller, [(bulb, color.Attributes.ColorTemperatureMireds)])[bulb][color][color.Attributes.ColorTemperatureMireds] == 400,
                   10, "the colour temperature to follow the device")
        invoke(color.Commands.StepColorTemperature(stepMode=3, stepSize=50, transitionTime=0, colorTemperatureMinimumMireds=0,
                                                   colorTemperatureMaximumMireds=0, **options))
        assert subscription.message(topic) == {"color_temp": 350}
        # A hue Move is ended by StopMoveStep as well.
        wait_until(lambda: read(loop, controller, [(bulb, color.Attributes.ColorTemperatureMireds)])[bulb][color][color.Attributes.ColorTemperatureMireds] == 350,
                   10, "the colour temperature to follow the device")
        invoke(color.Commands.MoveToHueAndSaturation(hue=0, saturation=254, transitionTime=0, **options))
        assert subscription.message(topic) == {"color": {"hue": 0, "saturation": 100}}
        wait_until(lambda: read(loop, controller, [(bulb, color.Attributes.CurrentHue)])[bulb][color][color.Attributes.CurrentHue] == 0
                   and read(loop, controller, [(bulb, color.Attributes.ColorMode)])[bulb][color][color.Attributes.ColorMode] == 0,
                   10, "the hue to follow the device")
        invoke(color.Commands.MoveHue(moveMode=1, rate=50, **options))
        assert subscription.message(topic)["color"]["hue"] > 0
        invoke(color.Commands.StopMoveStep(**options))
        # The level marks the end: StopMoveStep ended the hue Move before the level was queued, and
        # the writes keep their order, so no hue step can follow it.
        invoke(level.Commands.MoveToLevel(level=254, transitionTime=0, **options))
        while "brightness" not in (message := subscription.message(topic)):
            assert "color" in message
    finally:
        subscription.close()


def test_identify_blinks_a_light_and_trigger_effect_plays_its_effect(house, controller, loop):
    import chip.clusters as Clusters
    identify = Clusters.Identify
    color_bulb = reachable_light(house, loop, controller, "bulb_color_2/lightbulb")
    lamp = reachable_light(house, loop, controller, "bulb/lightbulb")
    switch = endpoints(house, loop, controller)["kitchen_wall_switch/lightbulb_l1"]
    subscription = house.subscribe("zigbee2mqtt/+/set")
    try:
        # bulb_color_2 has a blink effect, bulb Zigbee2MQTT's identify: what `accessory/identify` sends.
        loop.run_until_complete(controller.SendCommand(NODE, color_bulb, identify.Commands.Identify(identifyTime=5)))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"effect": "blink"}
        loop.run_until_complete(controller.SendCommand(NODE, lamp, identify.Commands.Identify(identifyTime=5)))
        assert subscription.message("zigbee2mqtt/bulb/set") == {"identify": "identify"}
        loop.run_until_complete(controller.SendCommand(NODE, color_bulb, identify.Commands.TriggerEffect(effectIdentifier=1, effectVariant=0)))
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"effect": "breathe"}
        written = loop.run_until_complete(controller.WriteAttribute(NODE, [(color_bulb, identify.Attributes.IdentifyTime(3))]))
        assert [int(result.Status) for result in written] == [0]
        assert subscription.message("zigbee2mqtt/bulb_color_2/set") == {"effect": "blink"}
        # A switch's light has neither: accepted, nothing sent, and the log says why. The colour bulb's
        # Identify right after is the marker: identifies and writes go out in one ordered queue, so
        # anything sent for the switch would come before it.
        loop.run_until_complete(controller.SendCommand(NODE, switch, identify.Commands.Identify(identifyTime=5)))
        loop.run_until_complete(controller.SendCommand(NODE, color_bulb, identify.Commands.Identify(identifyTime=5)))
        assert next_message(subscription) == ("zigbee2mqtt/bulb_color_2/set", {"effect": "blink"})
        wait_until(lambda: "cannot show itself" in house.log(), 10, "the log to say the switch cannot show itself")
    finally:
        subscription.close()
def test_pressure_light_air_quality_and_leaks_follow_the_devices(house, controller, loop):
    import chip.clusters as Clusters
    pressure, light, air = Clusters.PressureMeasurement, Clusters.IlluminanceMeasurement, Clusters.AirQuality
    pm25, pm10 = Clusters.Pm25ConcentrationMeasurement, Clusters.Pm10ConcentrationMeasurement
    tvoc, boolean = Clusters.TotalVolatileOrganicCompoundsConcentrationMeasurement, Clusters.BooleanState
    numbers = endpoints(house, loop, controller)
    weather, room = numbers["weather_sensor/air_pressure_sensor"], numbers["occupancy_sensor/light_sensor"]
    monitor, leak = numbers["air_monitor/air_quality_sensor"], numbers["bathroom_leak/leak_sensor"]
    paths = [(weather, pressure, pressure.Attributes.MeasuredValue), (room, light, light.Attributes.MeasuredValue),
             (monitor, air, air.Attributes.AirQuality), (monitor, pm25, pm25.Attributes.MeasuredValue),
             (monitor, pm10, pm10.Attributes.MeasuredValue), (monitor, tvoc, tvoc.Attributes.MeasuredValue),
             (leak, boolean, boolean.Attributes.StateValue)]

    def values():
        read_back = read(loop, controller, [(endpoint, attribute) for endpoint, _, attribute in paths])
        return tuple(read_back[endpoint][cluster][attribute] for endpoint, cluster, attribute in paths)

    # Units as Matter has them: kPa×10 (hPa), 10000·log10(lux)+1, µg/m³ as floats; the air quality
    # the worst reading's (PM2.5 at 40 µg/m³ is HomeKit's fair: Matter's Moderate).
    house.simulator("report", {"id": "weather_sensor", "state": {"pressure": 1012.3}})
    house.simulator("report", {"id": "occupancy_sensor", "state": {"illuminance": 1000}})
    house.simulator("report", {"id": "air_monitor", "state": {"pm25": 40, "pm10": 20, "voc": 150}})
    house.simulator("report", {"id": "bathroom_leak", "state": {"water_leak": True}})
    wait_until(lambda: values() == (1012, 30001, air.Enums.AirQualityEnum.kModerate, 40.0, 20.0, 150.0, True), 10,
               "the readings as Matter has them")
    # A dark room is too little light to measure (0); the leak gone, the air clean again.
    house.simulator("report", {"id": "occupancy_sensor", "state": {"illuminance": 0}})
    house.simulator("report", {"id": "air_monitor", "state": {"pm25": 5, "pm10": 10, "voc": 100}})
    house.simulator("report", {"id": "bathroom_leak", "state": {"water_leak": False}})
    wait_until(lambda: values() == (1012, 0, air.Enums.AirQualityEnum.kGood, 5.0, 10.0, 100.0, False), 10, "the readings to follow")
    features = read(loop, controller, [(monitor, pm25.Attributes.MeasurementUnit), (monitor, air.Attributes.FeatureMap)])[monitor]
    assert features[pm25][pm25.Attributes.MeasurementUnit] == pm25.Enums.MeasurementUnitEnum.kUgm3
    assert features[air][air.Attributes.FeatureMap] == air.Bitmaps.Feature.kFair | air.Bitmaps.Feature.kModerate | air.Bitmaps.Feature.kVeryPoor


def test_a_smoke_alarm_and_batteries_reach_a_subscription(house, controller, loop):
    import chip.clusters as Clusters
    alarm, power = Clusters.SmokeCoAlarm, Clusters.PowerSource
    numbers = endpoints(house, loop, controller)
    smoke = numbers["hallway_smoke_detector/smoke_sensor"]
    weather = numbers["weather_sensor/"]  # the parent: the composed device's Power Source
    sensors = [numbers[key] for key in ("weather_sensor/temperature_sensor", "weather_sensor/humidity_sensor",
                                        "weather_sensor/air_pressure_sensor")]
    powered = read(loop, controller, [(weather, power.Attributes.EndpointList)])[weather][power][power.Attributes.EndpointList]
    assert powered == [weather, *sorted(sensors)]
    assert not any(power in clusters for clusters in read(loop, controller, [(number, power) for number in sensors]).values())
    read_back = read(loop, controller, [(smoke, alarm.Attributes.FeatureMap), (smoke, power.Attributes.FeatureMap),
                                        (smoke, power.Attributes.Description), (smoke, power.Attributes.EndpointList)])[smoke]
    assert read_back[alarm][alarm.Attributes.FeatureMap] == 0x01  # smoke, no CO
    assert read_back[power][power.Attributes.FeatureMap] == 0x02  # battery
    assert (read_back[power][power.Attributes.Description], read_back[power][power.Attributes.EndpointList]) == ("Battery", [smoke])
    subscription = loop.run_until_complete(controller.Read(
        NODE, attributes=[(smoke, alarm), (smoke, power), (weather, power)], reportInterval=(0, 30)))
    try:
        # The subscription's cache is read in the SDK's thread alone (the report callback): reading
        # it here while a report is taken in is a race. The priming report is in before any change.
        seen = {(endpoint, attribute): value for endpoint, clusters in subscription.GetAttributes().items()
                for attributes in clusters.values() for attribute, value in attributes.items()}
        subscription.SetAttributeUpdateCallback(
            lambda path, transaction: seen.__setitem__((path.Path.EndpointId, path.AttributeType), transaction.GetAttribute(path)))

        def at(endpoint, attribute):
            return seen.get((endpoint, attribute))

        def smoke_state():
            return (at(smoke, alarm.Attributes.SmokeState), at(smoke, alarm.Attributes.ExpressedState),
                    at(smoke, alarm.Attributes.BatteryAlert), at(smoke, power.Attributes.BatChargeLevel),
                    at(smoke, power.Attributes.BatPercentRemaining))

        states, expressed = alarm.Enums.AlarmStateEnum, alarm.Enums.ExpressedStateEnum
        charge = power.Enums.BatChargeLevelEnum
        house.simulator("report", {"id": "hallway_smoke_detector", "state": {"smoke": True, "battery_low": False, "battery": 80}})
        wait_until(lambda: smoke_state() == (states.kCritical, expressed.kSmokeAlarm, states.kNormal, charge.kOk, 160), 10,
                   "smoke reported as the alarm sounding, the battery at 80 % (160 half percents)")
        house.simulator("report", {"id": "hallway_smoke_detector", "state": {"smoke": False, "battery_low": True, "battery": 15}})
        wait_until(lambda: smoke_state() == (states.kNormal, expressed.kBatteryAlert, states.kWarning, charge.kWarning, 30), 10,
                   "the smoke gone, a low battery expressed and on the Power Source")
        # One battery, on the composed device's parent.
        house.simulator("report", {"id": "weather_sensor", "state": {"battery": 64}})
        wait_until(lambda: at(weather, power.Attributes.BatPercentRemaining) == 128, 10, "the weather sensor's battery on its parent")
    finally:
        subscription.Shutdown()
    house.simulator("report", {"id": "hallway_smoke_detector", "state": {"battery_low": False, "battery": 100}})


def cluster_values(loop, controller, endpoint, cluster):
    return read(loop, controller, [(endpoint, cluster)])[endpoint][cluster]


def test_a_door_lock_is_locked_and_unlocked_by_timed_invokes_with_no_pin(house, controller, loop):
    import chip.clusters as Clusters
    from chip import ChipUtility
    from chip.interaction_model import InteractionModelError, Status
    door_lock = Clusters.DoorLock
    attributes, states = door_lock.Attributes, door_lock.Enums.DlLockState
    lock = endpoints(house, loop, controller)["front_door_lock/lock_mechanism"]

    def state():
        return cluster_values(loop, controller, lock, door_lock)[attributes.LockState]

    values = cluster_values(loop, controller, lock, door_lock)
    assert values[attributes.LockState] == states.kLocked  # the simulated lock starts locked
    assert (values[attributes.LockType], values[attributes.ActuatorEnabled], values[attributes.OperatingMode]) == (
        door_lock.Enums.DlLockType.kDeadBolt, True, door_lock.Enums.OperatingModeEnum.kNormal)
    assert values[attributes.SupportedOperatingModes] == 0xFFFE  # a bit clear is a mode supported: normal alone
    assert values[attributes.FeatureMap] == 0  # no PIN, no users: LockDoor and UnlockDoor take no code
    events = loop.run_until_complete(controller.Read(NODE, events=[(lock, door_lock, 1)], reportInterval=(0, 30)))
    # The events as the SDK's thread takes them in (its cache is not safe to read from here while a
    # report comes in); the priming report is in before the lock is driven, and not in this list.
    reported = []
    events.SetEventUpdateCallback(lambda event, transaction: reported.append(event))
    subscription = house.subscribe("zigbee2mqtt/front_door_lock/set")
    try:
        # Without a Timed Invoke the node refuses (the SDK's client refuses first: sent as a command that does not say it needs one).
        class UntimedUnlockDoor(door_lock.Commands.UnlockDoor):
            @ChipUtility.classproperty
            def must_use_timed_invoke(cls) -> bool:
                return False

        with pytest.raises(InteractionModelError) as refused:
            loop.run_until_complete(controller.SendCommand(NODE, lock, UntimedUnlockDoor()))
        assert refused.value.status == Status.NeedsTimedInteraction
        loop.run_until_complete(controller.SendCommand(NODE, lock, door_lock.Commands.UnlockDoor(), timedRequestTimeoutMs=1000))
        assert subscription.message("zigbee2mqtt/front_door_lock/set") == {"state": "UNLOCK"}  # not the refused one: nothing went out for it
        wait_until(lambda: state() == states.kUnlocked, 10, "LockState to follow the lock: unlocked")
        loop.run_until_complete(controller.SendCommand(NODE, lock, door_lock.Commands.LockDoor(), timedRequestTimeoutMs=1000))
        assert subscription.message("zigbee2mqtt/front_door_lock/set") == {"state": "LOCK"}
        wait_until(lambda: state() == states.kLocked, 10, "LockState to follow the lock: locked")

        def operations():
            return [event.Data.lockOperationType for event in list(reported)
                    if event.Header.EndpointId == lock and event.Header.EventId == door_lock.Events.LockOperation.event_id]

        kinds = door_lock.Enums.LockOperationTypeEnum
        wait_until(lambda: operations() == [kinds.kUnlock, kinds.kLock], 10, "LockOperation events: unlock, then lock")
    finally:
        subscription.close()
        events.Shutdown()
    # Jammed or not fully locked, as the lock reports it: NotFullyLocked.
    house.simulator("report", {"id": "front_door_lock", "state": {"lock_state": "not_fully_locked"}})
    wait_until(lambda: state() == states.kNotFullyLocked, 10, "LockState not fully locked")


def test_a_fan_is_driven_by_its_mode_its_percentage_and_steps(house, controller, loop):
    import chip.clusters as Clusters
    fan_control = Clusters.FanControl
    attributes, modes = fan_control.Attributes, fan_control.Enums.FanModeEnum
    fan = endpoints(house, loop, controller)["ceiling_fan/fanv2"]

    def now():
        values = cluster_values(loop, controller, fan, fan_control)
        return values[attributes.FanMode], values[attributes.PercentSetting], values[attributes.PercentCurrent]

    values = cluster_values(loop, controller, fan, fan_control)
    # fan_mode low/medium/high/on/smart: three speeds, no auto.
    assert values[attributes.FanModeSequence] == fan_control.Enums.FanModeSequenceEnum.kOffLowMedHigh
    assert values[attributes.FeatureMap] == fan_control.Bitmaps.Feature.kStep
    assert now() == (modes.kOff, 0, 0)  # the simulated fan starts off
    subscription = house.subscribe("zigbee2mqtt/ceiling_fan/set")

    def write(attribute):
        return [int(result.Status) for result in loop.run_until_complete(controller.WriteAttribute(NODE, [(fan, attribute)]))]

    try:
        # 50 % of a three-speed fan is its middle speed (the house rounds to the 33 % step): on and medium, one /set.
        assert write(attributes.PercentSetting(50)) == [0]
        assert subscription.message("zigbee2mqtt/ceiling_fan/set") == {"fan_state": "ON", "fan_mode": "medium"}
        wait_until(lambda: now() == (modes.kMedium, 66, 66), 10, "the fan at medium")
        assert write(attributes.FanMode(modes.kHigh)) == [0]
        assert subscription.message("zigbee2mqtt/ceiling_fan/set") == {"fan_mode": "high"}
        wait_until(lambda: now() == (modes.kHigh, 100, 100), 10, "the fan at high")  # the house's 99 % (its 33 % step) shown as 100
        loop.run_until_complete(controller.SendCommand(NODE, fan, fan_control.Commands.Step(direction=fan_control.Enums.StepDirectionEnum.kDecrease)))
        assert subscription.message("zigbee2mqtt/ceiling_fan/set") == {"fan_mode": "medium"}
        wait_until(lambda: now() == (modes.kMedium, 66, 66), 10, "the fan a step down")
        assert write(attributes.FanMode(modes.kOff)) == [0]
        assert subscription.message("zigbee2mqtt/ceiling_fan/set") == {"fan_state": "OFF"}
        wait_until(lambda: now() == (modes.kOff, 0, 0), 10, "the fan off")
        assert write(attributes.FanMode(modes.kAuto)) == [0x87]  # it has no auto: CONSTRAINT_ERROR, nothing sent
        assert write(attributes.PercentSetting(33)) == [0]
        assert subscription.message("zigbee2mqtt/ceiling_fan/set") == {"fan_state": "ON", "fan_mode": "low"}
    finally:
        subscription.close()


def test_a_thermostat_that_cools_has_both_setpoints_and_its_modes(house, controller, loop):
    import chip.clusters as Clusters
    thermostat = Clusters.Thermostat
    attributes, modes = thermostat.Attributes, thermostat.Enums.SystemModeEnum
    room = endpoints(house, loop, controller)["hallway_thermostat/thermostat"]

    def values():
        return cluster_values(loop, controller, room, thermostat)

    now = values()
    assert now[attributes.FeatureMap] == thermostat.Bitmaps.Feature.kHeating | thermostat.Bitmaps.Feature.kCooling
    assert now[attributes.ControlSequenceOfOperation] == thermostat.Enums.ControlSequenceOfOperationEnum.kCoolingAndHeating
    assert (now[attributes.AbsMinCoolSetpointLimit], now[attributes.AbsMaxCoolSetpointLimit]) == (500, 3000)  # BTH-RM: 5–30 °C
    assert (now[attributes.MinCoolSetpointLimit], now[attributes.MaxCoolSetpointLimit]) == (500, 3000)
    assert (now[attributes.SystemMode], now[attributes.OccupiedHeatingSetpoint]) == (modes.kHeat, 2100)
    subscription = house.subscribe("zigbee2mqtt/hallway_thermostat/set")

    def write(attribute):
        return [int(result.Status) for result in loop.run_until_complete(controller.WriteAttribute(NODE, [(room, attribute)]))]

    try:
        assert write(attributes.SystemMode(modes.kCool)) == [0]
        assert subscription.message("zigbee2mqtt/hallway_thermostat/set") == {"system_mode": "cool"}
        assert write(attributes.OccupiedCoolingSetpoint(2400)) == [0]
        assert subscription.message("zigbee2mqtt/hallway_thermostat/set") == {"occupied_cooling_setpoint": 24}
        wait_until(lambda: (values()[attributes.SystemMode], values()[attributes.OccupiedCoolingSetpoint]) == (modes.kCool, 2400),
                   10, "cooling to 24 °C")
        raise_lower = thermostat.Commands.SetpointRaiseLower
        loop.run_until_complete(controller.SendCommand(NODE, room, raise_lower(mode=thermostat.Enums.SetpointRaiseLowerModeEnum.kCool, amount=-5)))
        assert subscription.message("zigbee2mqtt/hallway_thermostat/set") == {"occupied_cooling_setpoint": 23.5}
        wait_until(lambda: values()[attributes.OccupiedCoolingSetpoint] == 2350, 10, "the cooling setpoint a half degree down")
        # Both: each setpoint up a degree, in one /set.
        loop.run_until_complete(controller.SendCommand(NODE, room, raise_lower(mode=thermostat.Enums.SetpointRaiseLowerModeEnum.kBoth, amount=10)))
        assert subscription.message("zigbee2mqtt/hallway_thermostat/set") == {"occupied_heating_setpoint": 22, "occupied_cooling_setpoint": 24.5}
        assert write(attributes.SystemMode(modes.kAuto)) == [0x87]  # off, heat and cool only
        assert write(attributes.OccupiedCoolingSetpoint(3500)) == [0x87]  # above 30 °C
    finally:
        subscription.close()
    wait_until(lambda: (values()[attributes.OccupiedHeatingSetpoint], values()[attributes.OccupiedCoolingSetpoint]) == (2200, 2450),
               10, "both setpoints to follow the thermostat")


def test_a_blind_tilts_by_percentage_as_its_slat_angle(house, controller, loop):
    import chip.clusters as Clusters
    covering = Clusters.WindowCovering
    attributes = covering.Attributes
    blind = endpoints(house, loop, controller)["living_room_blind/window_covering"]

    def tilt():
        return cluster_values(loop, controller, blind, covering)[attributes.CurrentPositionTiltPercent100ths]

    values = cluster_values(loop, controller, blind, covering)
    features = covering.Bitmaps.Feature
    assert values[attributes.FeatureMap] == features.kLift | features.kTilt | features.kPositionAwareLift | features.kPositionAwareTilt
    assert values[attributes.ConfigStatus] & covering.Bitmaps.ConfigStatus.kTiltPositionAware
    assert values[attributes.Type] == covering.Enums.Type.kTiltBlindLiftAndTilt
    assert tilt() == 10000  # Zigbee2MQTT's tilt 0: slats closed (-90°)
    subscription = house.subscribe("zigbee2mqtt/living_room_blind/set")
    try:
        # Matter's hundredths closed as HomeKit's angle (90° open, -90° closed) as Zigbee2MQTT's tilt percent open.
        for closed, sent in ((5000, 50), (0, 100), (2500, 75)):
            loop.run_until_complete(controller.SendCommand(NODE, blind, covering.Commands.GoToTiltPercentage(tiltPercent100thsValue=closed)))
            assert subscription.message("zigbee2mqtt/living_room_blind/set") == {"tilt": sent}
            wait_until(lambda: tilt() == closed, 10, f"the tilt to follow the blind: {closed}")
        with pytest.raises(Exception, match="(?i)constraint|0x87"):
            loop.run_until_complete(controller.SendCommand(NODE, blind, covering.Commands.GoToTiltPercentage(tiltPercent100thsValue=10001)))
        # Lift goes on as before.
        loop.run_until_complete(controller.SendCommand(NODE, blind, covering.Commands.GoToLiftPercentage(liftPercent100thsValue=4000)))
        assert subscription.message("zigbee2mqtt/living_room_blind/set") == {"position": 60}
    finally:
        subscription.close()


# Pairing for people (issue 45 item 5): homegate's own commissioning window, its fabrics by HTTP.

SECOND_NODE = 0x6002


def http(house, method: str, path: str):
    """(status, JSON) of one call to homegate's HTTP API, made in namespace A: the API listens on
    loopback there, which this process (in namespace B, beside the controller) cannot reach."""
    done = subprocess.run([*house.prefix, "curl", "-sS", "-X", method, "-w", "\n%{http_code}",
                           f"http://127.0.0.1:{house.http_port}{path}"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    body, _, status = done.stdout.rpartition("\n")
    return int(status), json.loads(body or "null")


def test_a_second_ecosystem_joins_through_homegates_window_and_leaves_by_http(house, controller, second_fabric_admin, loop):
    import chip.clusters as Clusters
    on_off = Clusters.OnOff
    plug = endpoints(house, loop, controller)["power_plug/outlet"]
    status, before = http(house, "GET", "/api/matter")
    assert status == 200 and before["enabled"] and before["serving"], before
    assert before["manual_code"] is None and before["window"] is None  # on a fabric, no window open: no code commissions
    assert [(f["vendor_id"], f["vendor_name"], f["node_id"]) for f in before["fabrics"]] == [(0xFFF1, "Matter test vendor 1", f"{NODE:016X}")]

    status, opened = http(house, "POST", "/api/matter/window?minutes=3")
    assert status == 200, opened
    window = opened["window"]
    assert window["opened_by"] == "homegate" and 170 <= window["seconds_left"] <= 180 and window["discriminator"] != DISCRIMINATOR
    assert opened["manual_code"] == window["manual_code"] and opened["qr_payload"] == window["qr_payload"]
    assert http(house, "POST", "/api/matter/window")[0] == 409  # one window at a time
    printed = pairing_codes(house)  # `homegate matter pairing` beside the running homegate shows the window's code
    assert printed["window's manual pairing code"] == window["manual_code"], printed["text"]
    from chip.setup_payload import SetupPayload
    parsed = SetupPayload().ParseQrCode(window["qr_payload"]).attributes
    assert int(parsed["Long discriminator"]) == window["discriminator"] and int(parsed["SetUpPINCode"]) != PASSCODE

    second = second_fabric_admin.NewController(paaTrustStorePath=PAA_STORE)
    try:
        started = time.monotonic()
        # As the second ecosystem's user types the code the page showed: discovery by the window's
        # short discriminator, PASE with the window's passcode, attestation, fabric 2's NOC, CASE.
        assert loop.run_until_complete(second.CommissionWithCode(window["manual_code"], SECOND_NODE)) == SECOND_NODE
        FIGURES["second fabric through homegate's window (manual code)"] = f"{1000 * (time.monotonic() - started):.0f} ms"
        status, joined = http(house, "GET", "/api/matter")
        assert [f["vendor_id"] for f in joined["fabrics"]] == [0xFFF1, 0xFFF2] and joined["window"] is None, joined
        second_index = joined["fabrics"][1]["index"]

        def plug_on(by, node):
            return loop.run_until_complete(by.ReadAttribute(node, [(plug, on_off.Attributes.OnOff)]))[plug][on_off][on_off.Attributes.OnOff]

        # A change either ecosystem makes reaches the device, and both see the device's new state.
        for by, node, command, wanted in ((second, SECOND_NODE, on_off.Commands.On(), True), (controller, NODE, on_off.Commands.Off(), False)):
            loop.run_until_complete(by.SendCommand(node, plug, command))
            wait_until(lambda: plug_on(controller, NODE) is wanted and plug_on(second, SECOND_NODE) is wanted, 10,
                       f"both fabrics to read the plug {'on' if wanted else 'off'}")

        assert http(house, "DELETE", "/api/matter/fabrics/9")[0] == 404
        status, left = http(house, "DELETE", f"/api/matter/fabrics/{second_index}")
        assert status == 200 and [f["vendor_id"] for f in left["fabrics"]] == [0xFFF1], left
        assert plug_on(controller, NODE) is False  # the first ecosystem goes on
        second.ExpireSessions(SECOND_NODE)
        with pytest.raises(Exception) as refused:  # its sessions ended with its fabric, and no CASE can replace them
            loop.run_until_complete(asyncio.wait_for(second.ReadAttribute(SECOND_NODE, [(plug, on_off.Attributes.OnOff)]), 5))
        # Its operational record is gone, so the node is not found (a timeout); found while avahi still
        # had the record, its Sigma1 is refused (the SDK's "No shared trusted root"). Nothing else.
        from chip.exceptions import ChipStackError
        assert isinstance(refused.value, (TimeoutError, asyncio.TimeoutError)) or (
            isinstance(refused.value, ChipStackError) and "No shared trusted root" in str(refused.value)), repr(refused.value)
        assert pairing_codes(house)["fabrics"] == "1"
    finally:
        second.Shutdown()


def test_a_window_is_revoked_and_the_commands_say_what_they_did(house, controller, loop):
    status, opened = http(house, "POST", "/api/matter/window?minutes=3")
    assert status == 200 and opened["window"] is not None
    status, revoked = http(house, "DELETE", "/api/matter/window")
    assert status == 200 and revoked["window"] is None and revoked["manual_code"] is None
    assert http(house, "DELETE", "/api/matter/window")[0] == 404
    assert http(house, "POST", "/api/matter/window?minutes=60")[0] == 400

    window = house.run_homegate("matter", "window", "--minutes", "5")
    assert window.returncode == 0, window.stderr
    assert "commissioning window: open for 4 min" in window.stdout or "commissioning window: open for 5 min" in window.stdout, window.stdout
    # `pairing` that cannot ask the running homegate (here its HTTP address is Mosquitto's) says why it shows no window.
    unasked = house.run_homegate("matter", "pairing", env={**house.gateways["homegate"].env, "HOMEGATE_HTTP_LISTEN": f"127.0.0.1:{house.mqtt_port}"})
    assert unasked.returncode == 0 and "window's manual pairing code" not in unasked.stdout, unasked.stdout + unasked.stderr
    assert "note: homegate runs, but an open commissioning window's code cannot be shown: " in unasked.stdout, unasked.stdout
    assert http(house, "DELETE", "/api/matter/window")[0] == 200
    unknown = house.run_homegate("matter", "unpair", "7")
    assert unknown.returncode == 1 and "no fabric 7" in unknown.stderr, unknown.stderr


def test_a_device_that_leaves_and_returns_gets_its_old_endpoint_back(house, controller, loop):
    """Removed from Zigbee2MQTT, a device leaves the Aggregator's parts list, and its number is not
    given to a newcomer; paired again, it is the same bridged device to every ecosystem."""
    import chip.clusters as Clusters
    descriptor, bridged = Clusters.Descriptor, Clusters.BridgedDeviceBasicInformation
    before = endpoints(house, loop, controller)
    plug = before["power_plug/outlet"]

    def parts():
        return set(read(loop, controller, [(1, descriptor.Attributes.PartsList)])[1][descriptor][descriptor.Attributes.PartsList])

    def number_of(name):
        ids = read(loop, controller, [(bridged.Attributes.UniqueID)])
        return next((endpoint for endpoint in ids if ids[endpoint][bridged][bridged.Attributes.UniqueID] == unique_id(name)), None)

    assert plug in parts()
    house.publish("zigbee2mqtt/bridge/request/device/remove", json.dumps({"id": "power_plug"}))
    wait_until(lambda: plug not in parts(), 30, "the removed plug to leave the parts list")
    assert number_of("power_plug/outlet") is None

    house.simulator("add", {"model": "ZNCZ02LM", "friendly_name": "new_plug", "ieee_address": "0x00124b00aabbcc01"})
    newcomer = wait_until(lambda: number_of("new_plug/outlet"), 30, "the new plug bridged")
    assert newcomer not in before.values() and newcomer > max(before.values())  # never the plug's old number

    house.simulator("add", {"model": "ZNCZ02LM", "friendly_name": "power_plug", "ieee_address": "0x0017880104e45524"})
    wait_until(lambda: plug in parts(), 30, "the plug back in the parts list")
    assert number_of("power_plug/outlet") == plug
    assert {key: number for key, number in endpoints(house, loop, controller).items() if key in before} == before


def test_an_export_with_the_matter_state_carries_the_fabric_to_another_database(house, controller, tmp_path):
    """`homegate export --include-matter` beside the running homegate, imported onto a fresh database:
    the same setup (codes), fabric and endpoint numbers there, so a moved homegate stays in every ecosystem."""
    exported = tmp_path / "house.yaml"
    done = house.run_homegate("export", "--include-matter", "--output", str(exported))
    assert done.returncode == 0, done.stderr
    assert "keep it private" in done.stderr and exported.stat().st_mode & 0o777 == 0o600
    text = exported.read_text()
    assert all(f"  {key}:" in text for key in ("matter.endpoints", "matter.node", "matter.setup")), text[-600:]

    env = {**house.gateways["homegate"].env, "HOMEGATE_DATABASE": str(tmp_path / "moved.sqlite")}
    restored = house.run_homegate("import", str(exported), env=env)
    assert restored.returncode == 0 and "restored the Matter bridge's state" in restored.stdout, restored.stdout + restored.stderr
    here, moved = pairing_codes(house), house.run_homegate("matter", "pairing", env=env)
    assert moved.returncode == 0, moved.stderr
    assert f"manual pairing code: {here['manual pairing code']}" in moved.stdout
    assert "fabrics:             1" in moved.stdout and f"node 0x{NODE:X}" in moved.stdout
    again = house.run_homegate("import", str(exported), env=env)  # a database with a bridge of its own is not overwritten
    assert again.returncode == 1
    # With homegate stopped (here: the moved database, which no homegate runs on), unpair changes the database itself.
    unpaired = house.run_homegate("matter", "unpair", "--all", env=env)
    assert unpaired.returncode == 0 and "removed 1 fabric" in unpaired.stdout and "left: none" in unpaired.stdout, unpaired.stdout + unpaired.stderr
    assert "fabrics:             none" in house.run_homegate("matter", "pairing", env=env).stdout


def test_a_controller_that_drops_its_session_resumes_it_and_is_answered(house, controller, loop):
    """The controller's ExpireSessions while homegate runs on: its next request resumes the CASE
    session (Sigma1 with a resumption id, Sigma2Resume) and is answered on the resumed session."""
    import chip.clusters as Clusters
    read(loop, controller, [(0, Clusters.BasicInformation.Attributes.VendorName)])
    full, resumed = house.log().count("CASE session established"), house.log().count("CASE session resumed")
    controller.ExpireSessions(NODE)
    started = time.monotonic()
    assert read(loop, controller, [(0, Clusters.BasicInformation.Attributes.VendorName)])[0][Clusters.BasicInformation][Clusters.BasicInformation.Attributes.VendorName]
    assert time.monotonic() - started < 5
    # Resumed, not a full CASE: homegate logs which (at info) as it opens the session, before its answer.
    wait_until(lambda: house.log().count("CASE session resumed") == resumed + 1, 10, "homegate to log the session resumed")
    assert house.log().count("CASE session established") == full


def test_a_smoke_alarms_events_reach_an_event_subscription_in_order_each_once(house, controller, loop):
    import chip.clusters as Clusters
    alarm = Clusters.SmokeCoAlarm
    smoke = endpoints(house, loop, controller)["hallway_smoke_detector/smoke_sensor"]

    def expressed():
        return read(loop, controller, [(smoke, alarm.Attributes.ExpressedState)])[smoke][alarm][alarm.Attributes.ExpressedState]

    house.simulator("report", {"id": "hallway_smoke_detector", "state": {"smoke": False, "battery_low": False}})
    wait_until(lambda: expressed() == alarm.Enums.ExpressedStateEnum.kNormal, 10, "the detector quiet before the events")
    subscription = loop.run_until_complete(controller.Read(NODE, events=[(smoke, alarm, 1)], reportInterval=(0, 30)))
    try:
        # The events as the SDK's thread takes them in (its cache is not safe to read from here while
        # a report comes in); the priming report is in before the changes, and not in this list.
        received = []
        subscription.SetEventUpdateCallback(lambda event, transaction: received.append(event))

        def events():
            return [(type(event.Data).__name__, getattr(event.Data, "alarmSeverityLevel", None), event.Header.Priority.name)
                    for event in list(received) if event.Header.EndpointId == smoke]

        # One change a report: smoke (and the same report again), a low battery while it sounds, the
        # smoke gone (the battery still expressed), the battery replaced (all clear).
        for state in ({"smoke": True}, {"smoke": True}, {"battery_low": True}, {"smoke": False}, {"battery_low": False}):
            house.simulator("report", {"id": "hallway_smoke_detector", "state": state})
        states = alarm.Enums.AlarmStateEnum
        expected = [("SmokeAlarm", states.kCritical, "CRITICAL"), ("LowBattery", states.kWarning, "INFO"), ("AllClear", None, "INFO")]
        wait_until(lambda: len(events()) >= len(expected), 10, "SmokeAlarm, LowBattery and AllClear")
        # Each once: a marker (the smoke again, its SmokeAlarm) is the next event after them; the
        # node emits them in order, so a second of any would have come before it.
        house.simulator("report", {"id": "hallway_smoke_detector", "state": {"smoke": True}})
        marker = ("SmokeAlarm", states.kCritical, "CRITICAL")
        wait_until(lambda: len(events()) >= len(expected) + 1, 10, "the marker's SmokeAlarm")
        assert events() == expected + [marker]
    finally:
        subscription.Shutdown()
        house.simulator("report", {"id": "hallway_smoke_detector", "state": {"smoke": False}})


def test_a_carbon_dioxide_sensor_is_an_air_quality_sensor_with_its_ppm(house, controller, loop):
    import chip.clusters as Clusters
    air, co2 = Clusters.AirQuality, Clusters.CarbonDioxideConcentrationMeasurement
    office = endpoints(house, loop, controller)["office_co2/air_quality_sensor"]

    def values():
        read_back = read(loop, controller, [(office, air.Attributes.AirQuality), (office, co2.Attributes.MeasuredValue)])[office]
        return read_back[air][air.Attributes.AirQuality], read_back[co2][co2.Attributes.MeasuredValue]

    # 1,450 ppm is HomeKit's fair (Matter's Moderate), 600 its excellent (Good).
    house.simulator("report", {"id": "office_co2", "state": {"co2": 1450}})
    wait_until(lambda: values() == (air.Enums.AirQualityEnum.kModerate, 1450.0), 10, "the CO2 in ppm and the air quality it makes")
    house.simulator("report", {"id": "office_co2", "state": {"co2": 600}})
    wait_until(lambda: values() == (air.Enums.AirQualityEnum.kGood, 600.0), 10, "the CO2 to follow")
    attributes = read(loop, controller, [(office, co2)])[office][co2]
    assert attributes[co2.Attributes.MeasurementUnit] == co2.Enums.MeasurementUnitEnum.kPpm
    assert attributes[co2.Attributes.MeasurementMedium] == co2.Enums.MeasurementMediumEnum.kAir
    assert (attributes[co2.Attributes.MinMeasuredValue], attributes[co2.Attributes.MaxMeasuredValue]) == (0.0, 100000.0)
    assert attributes[co2.Attributes.FeatureMap] == co2.Bitmaps.Feature.kNumericMeasurement


def test_identify_on_other_devices_runs_the_houses_identify(house, controller, loop):
    import chip.clusters as Clusters
    identify = Clusters.Identify
    numbers = endpoints(house, loop, controller)
    types = read(loop, controller, [(identify.Attributes.IdentifyType)])
    lights = {0x0100, 0x0101, 0x010C, 0x010D}  # On/Off, Dimmable, Color Temperature and Extended Color Light
    for key, device_type in EXPECTED.items():  # every bridged device type has Identify: a light by its light, the rest an indicator
        kind = identify.Enums.IdentifyTypeEnum.kLightOutput if device_type in lights else identify.Enums.IdentifyTypeEnum.kVisibleIndicator
        assert types[numbers[key]][identify][identify.Attributes.IdentifyType] == kind, key
    blind, plug = numbers["living_room_blind/window_covering"], numbers["power_plug/outlet"]
    smoke = numbers["hallway_smoke_detector/smoke_sensor"]
    subscription = house.subscribe("zigbee2mqtt/+/set")
    try:
        # The blind exposes Zigbee2MQTT's identify: what `accessory/identify` sends.
        loop.run_until_complete(controller.SendCommand(NODE, blind, identify.Commands.Identify(identifyTime=5)))
        assert subscription.message("zigbee2mqtt/living_room_blind/set") == {"identify": "identify"}
        written = loop.run_until_complete(controller.WriteAttribute(NODE, [(blind, identify.Attributes.IdentifyTime(3))]))
        assert [int(result.Status) for result in written] == [0]
        assert subscription.message("zigbee2mqtt/living_room_blind/set") == {"identify": "identify"}
        # A plug and a smoke detector that cannot show themselves: accepted, nothing sent, logged.
        loop.run_until_complete(controller.SendCommand(NODE, plug, identify.Commands.Identify(identifyTime=5)))
        written = loop.run_until_complete(controller.WriteAttribute(NODE, [(smoke, identify.Attributes.IdentifyTime(3))]))
        assert [int(result.Status) for result in written] == [0]
        # Nothing sent for them: the blind's Identify, queued after theirs in the bridge's one ordered
        # queue, is the next `/set` of any device.
        loop.run_until_complete(controller.SendCommand(NODE, blind, identify.Commands.Identify(identifyTime=5)))
        assert next_message(subscription) == ("zigbee2mqtt/living_room_blind/set", {"identify": "identify"})
        wait_until(lambda: "(ZNCZ02LM) exposes neither" in house.log() and "(JTYJ-GD-01LM/BW) exposes neither" in house.log(), 10,
                   "the log to say the plug and the detector cannot show themselves")
    finally:
        subscription.close()
