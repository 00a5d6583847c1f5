"""homegate's Matter bridge (issue 45) with the Matter SDK's own controller, between two network
namespaces: the shared house (Tests/pyhouse: Mosquitto, the Zigbee2MQTT simulator, `homegate run`
with matter.enabled) runs in namespace A beside avahi; the controller, in B, commissions homegate,
reads the Aggregator's parts with their device types, switches a light and sees the simulated
device's `/set`, gets a device's change and its reachability in a wildcard subscription, and finds
the same endpoints after a restart, and after a power cut (an empty broker, the devices late)."""

import asyncio
import hashlib
import statistics
import sys
import time
from pathlib import Path

import pytest

import conftest
from conftest import PAA_STORE, free_udp_port
from netns import ADDRESS6_A

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pyhouse.house import House, wait_until  # noqa: E402

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
    "bulb_color_2/lightbulb": 0x010C,
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
}


def unique_id(key: str) -> str:
    return hashlib.sha256(key.encode()).digest()[:16].hex()


BY_UNIQUE_ID = {unique_id(key): key for key in EXPECTED}


class MatterHouse(House):
    """The house in namespace A, homegate's Matter bridge on a fixed UDP port there."""

    def __init__(self, bin_path, workdir, network):
        super().__init__(bin_path, workdir, name="matter-bridge", prefix=["ip", "netns", "exec", network.ns_a], env=network.env)
        self.matter_port = free_udp_port()  # namespace A is empty: free there too

    def environment(self, name="homegate", extra=None):
        return super().environment(name, {
            "HOMEGATE_MATTER_ENABLED": "true",
            "HOMEGATE_MATTER_PORT": str(self.matter_port),
            "HOMEGATE_MATTER_PASSCODE": str(PASSCODE),
            "HOMEGATE_MATTER_DISCRIMINATOR": str(DISCRIMINATOR),
            **(extra or {}),
        })

    def start_gateway(self, name="homegate", env=None, cwd=None, ready=("Matter bridge serving",), timeout=120):
        return super().start_gateway(name, env, cwd, ready, timeout)


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


def endpoints(loop, controller) -> dict:
    """Each bridged endpoint's key (by its UniqueID), once every expected one is listed."""
    import chip.clusters as Clusters
    bridged = Clusters.BridgedDeviceBasicInformation

    def listed():
        ids = read(loop, controller, [(bridged.Attributes.UniqueID)])
        found = {BY_UNIQUE_ID.get(ids[endpoint][bridged][bridged.Attributes.UniqueID]): endpoint for endpoint in ids}
        return found if set(EXPECTED) <= set(found) else None

    return wait_until(listed, 60, "every device of the demo house bridged", interval=0.5)


def test_the_house_is_an_aggregator_of_bridged_devices_with_their_device_types(house, controller, loop):
    import chip.clusters as Clusters
    descriptor, bridged = Clusters.Descriptor, Clusters.BridgedDeviceBasicInformation
    numbers = endpoints(loop, controller)
    read_back = read(loop, controller, [(descriptor.Attributes.PartsList), (descriptor.Attributes.DeviceTypeList)])
    parts = sorted(numbers.values())
    assert read_back[0][descriptor][descriptor.Attributes.PartsList] == [1, *parts]
    assert read_back[1][descriptor][descriptor.Attributes.PartsList] == parts
    assert [t.deviceType for t in read_back[0][descriptor][descriptor.Attributes.DeviceTypeList]] == [0x0016]  # Root Node
    assert [t.deviceType for t in read_back[1][descriptor][descriptor.Attributes.DeviceTypeList]] == [0x000E]  # Aggregator
    for key, device_type in EXPECTED.items():
        types = [t.deviceType for t in read_back[numbers[key]][descriptor][descriptor.Attributes.DeviceTypeList]]
        assert types == [device_type, 0x0013], (key, types)  # the device, and Bridged Node
    labels = read(loop, controller, [(bridged.Attributes.NodeLabel), (bridged.Attributes.Reachable), (bridged.Attributes.VendorName)])
    assert labels[numbers["bulb/lightbulb"]][bridged][bridged.Attributes.NodeLabel] == "Desk Lamp"
    assert labels[numbers["bulb/lightbulb"]][bridged][bridged.Attributes.VendorName] == "IKEA"
    assert labels[numbers["bulb/lightbulb"]][bridged][bridged.Attributes.Reachable] is True
    assert labels[numbers["power_plug/outlet"]][bridged][bridged.Attributes.NodeLabel] == "Coffee Machine"
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
    assert matter == {"serving": True, "port": house.matter_port, "endpoints": len(EXPECTED), "fabrics": 1}
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


def test_invokes_reach_the_simulated_device_as_one_set_each(house, controller, loop):
    import chip.clusters as Clusters
    on_off, level, color = Clusters.OnOff, Clusters.LevelControl, Clusters.ColorControl
    lamp = endpoints(loop, controller)["bulb/lightbulb"]
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
    door = endpoints(loop, controller)["front_door_contact/contact_sensor"]
    # As Home Assistant's Matter server subscribes: every attribute and every event.
    subscription = loop.run_until_complete(controller.Read(NODE, attributes=["*"], events=[("*", 1)], reportInterval=(0, 30)))
    try:
        def value(cluster, attribute):
            return subscription.GetAttributes()[door][cluster][attribute]

        def report(state, wanted):
            reported = asyncio.Event()
            subscription.SetAttributeUpdateCallback(
                lambda path, transaction: loop.call_soon_threadsafe(reported.set) if wanted(path) else None)
            started = time.monotonic()
            house.simulator(*state)
            loop.run_until_complete(asyncio.wait_for(reported.wait(), 10))
            return 1000 * (time.monotonic() - started)

        def at_door(attribute):
            return lambda path: path.Path.EndpointId == door and path.Path.AttributeId == attribute.attribute_id

        latencies = []
        closed = value(boolean, boolean.Attributes.StateValue)
        for _ in range(6):
            closed = not closed  # always a change, whatever the door was
            latencies.append(report(("report", {"id": "front_door_contact", "state": {"contact": closed}}), at_door(boolean.Attributes.StateValue)))
            assert value(boolean, boolean.Attributes.StateValue) is closed  # Matter: true in contact
        FIGURES["device change -> subscription report p50 (incl. mosquitto_pub)"] = f"{statistics.median(latencies):.1f} ms"

        assert value(bridged, bridged.Attributes.Reachable) is True
        for state, reachable in (("offline", False), ("online", True)):
            report(("availability", {"id": "front_door_contact", "state": state}), at_door(bridged.Attributes.Reachable))
            assert value(bridged, bridged.Attributes.Reachable) is reachable

        def reachable_changes():
            return [event.Data.reachableNewValue for event in subscription.GetEvents()
                    if event.Header.EndpointId == door and event.Header.EventId == bridged.Events.ReachableChanged.event_id]

        wait_until(lambda: reachable_changes()[-2:] == [False, True], 10, "ReachableChanged events, false then true")
    finally:
        subscription.Shutdown()


def test_plugs_switches_covers_and_sensors_are_driven_and_read(house, controller, loop):
    import chip.clusters as Clusters
    on_off, covering = Clusters.OnOff, Clusters.WindowCovering
    numbers = endpoints(loop, controller)
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
    radiator = endpoints(loop, controller)["bosch_radiator/thermostat"]

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
    button = endpoints(loop, controller)["button/stateless_programmable_switch"]
    subscription = loop.run_until_complete(controller.Read(NODE, events=[(button, switch, 1)], reportInterval=(0, 30)))
    try:
        def presses():
            return [(type(event.Data).__name__, getattr(event.Data, "totalNumberOfPressesCounted", None))
                    for event in subscription.GetEvents() if event.Header.EndpointId == button]

        before = len(presses())
        for action in ("single", "double", "hold", "single"):
            house.simulator("action", {"id": "button", "action": action})
        expected = [("InitialPress", None), ("ShortRelease", None), ("MultiPressComplete", 1),
                    ("InitialPress", None), ("ShortRelease", None), ("MultiPressOngoing", None), ("InitialPress", None),
                    ("ShortRelease", None), ("MultiPressComplete", 2),
                    ("InitialPress", None), ("LongPress", None), ("LongRelease", None),
                    ("InitialPress", None), ("ShortRelease", None), ("MultiPressComplete", 1)]
        wait_until(lambda: presses()[before:] == expected, 10, "every press as its events, in order (the same press twice too)")
    finally:
        subscription.Shutdown()


def test_endpoints_stay_put_after_a_restart_and_a_power_cut(house, controller, loop):
    import chip.clusters as Clusters
    bridged = Clusters.BridgedDeviceBasicInformation
    before = endpoints(loop, controller)

    house.stop_gateway()
    house.start_gateway()
    controller.ExpireSessions(NODE)  # the old session died with the process: CASE again, no recommissioning
    assert endpoints(loop, controller) == before

    # A power cut: the broker comes back empty and the devices are late. The known house is served
    # from the start, unchanged, every device not reachable until it reports.
    house.stop_gateway()
    house.stop("simulator")
    house.stop("mosquitto")
    house.start_mosquitto(port=house.mqtt_port)
    house.start_gateway()
    controller.ExpireSessions(NODE)
    assert endpoints(loop, controller) == before
    reachable = read(loop, controller, [(bridged.Attributes.Reachable)])
    for key in ("bulb/lightbulb", "power_plug/outlet", "front_door_contact/contact_sensor"):  # Zigbee devices, not heard from yet
        assert reachable[before[key]][bridged][bridged.Attributes.Reachable] is False, key
    house.start_simulator(groups=True)

    def back():
        values = read(loop, controller, [(before["power_plug/outlet"], bridged.Attributes.Reachable)])
        return values[before["power_plug/outlet"]][bridged][bridged.Attributes.Reachable] is True

    wait_until(back, 60, "the plug reachable once its device reports")
    assert endpoints(loop, controller) == before


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
