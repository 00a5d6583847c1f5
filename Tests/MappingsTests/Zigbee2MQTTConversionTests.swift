import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("Zigbee2MQTT payloads to characteristic values and back")
struct Zigbee2MQTTConversionTests {
    func mapping(_ name: String) throws -> Zigbee2MQTTMapping { try Zigbee2MQTTDevicesTests.mapping(name) }

    func values(_ mapping: Zigbee2MQTTMapping, _ payload: JSONValue) -> [String: CharacteristicValue] {
        let decoded = mapping.decode(payload)
        #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        return Dictionary(decoded.updates.map { ("\($0.service)/\($0.characteristic)", $0.value) }, uniquingKeysWith: { _, b in b })
    }

    @Test("state fixtures decode to the values HomeKit shows")
    func stateFixtures() throws {
        let bulb = try mapping("bulb")
        #expect(
            values(bulb, Fixture.states("LED1545G12")[0]) == [
                "lightbulb/on": .bool(true), "lightbulb/brightness": .int(20), "lightbulb/color_temperature": .int(370),
            ])
        let weather = try mapping("weather_sensor")
        #expect(
            values(weather, Fixture.states("WSDCGQ11LM")[1]) == [
                "temperature_sensor/current_temperature": .float(32.9), "humidity_sensor/current_relative_humidity": .float(59.96),
                "battery_service/battery_level": .int(0), "battery_service/status_low_battery": .int(1),
                "temperature_sensor/status_low_battery": .int(1), "humidity_sensor/status_low_battery": .int(1),
                "air_pressure_sensor/air_pressure": .float(1009.8),
            ])
        let contact = try mapping("front_door_contact")
        #expect(values(contact, Fixture.states("MCCGQ11LM")[0]) == ["contact_sensor/contact_sensor_state": .int(0)])
        #expect(values(contact, Fixture.states("MCCGQ11LM")[1]) == ["contact_sensor/contact_sensor_state": .int(1)])
        let motion = try mapping("occupancy_sensor")
        #expect(values(motion, Fixture.states("RTCGQ11LM")[2])["motion_sensor/motion_detected"] == .bool(true))
        let smoke = try mapping("hallway_smoke_detector")
        #expect(
            values(smoke, Fixture.states("JTYJ-GD-01LM_BW")[0]) == [
                "smoke_sensor/smoke_detected": .int(1), "smoke_sensor/status_tampered": .int(0),
                "battery_service/status_low_battery": .int(0),
                "smoke_sensor/status_low_battery": .int(0),
            ])
        let plug = try mapping("power_plug")
        #expect(values(plug, Fixture.states("ZNCZ02LM")[2]) == ["outlet/on": .bool(true), "outlet/outlet_in_use": .bool(true)])
        let wall = try mapping("kitchen_wall_switch")
        #expect(values(wall, Fixture.states("TS0002")[1]) == ["switch_l1/on": .bool(true), "switch_l2/on": .bool(false)])
        let curtain = try mapping("curtain")
        #expect(
            values(curtain, Fixture.states("ZNCLDJ11LM")[1]) == [
                "window_covering/current_position": .int(35), "window_covering/target_position": .int(35),
            ])
        let radiator = try mapping("bosch_radiator")
        #expect(
            values(radiator, Fixture.states("BTH-RA")[0]) == [
                "thermostat/current_temperature": .float(20.5), "thermostat/target_temperature": .int(21),
                "thermostat/target_heating_cooling_state": .int(1), "thermostat/current_heating_cooling_state": .int(1),
            ])
    }

    @Test("remote actions are presses on the right button; releases are ignored")
    func actions() throws {
        let remote = try mapping("remote")
        #expect(values(remote, ["action": "on_press_release"]) == ["stateless_programmable_switch_on/programmable_switch_event": .int(0)])
        #expect(values(remote, ["action": "up_hold"]) == ["stateless_programmable_switch_up/programmable_switch_event": .int(2)])
        #expect(values(remote, ["action": "on_press"]).isEmpty, "the short press is reported on press_release")
        #expect(values(remote, ["action": "off_hold_release"]).isEmpty)
        #expect(
            values(try mapping("button"), ["action": "triple"]) == [
                "stateless_programmable_switch_triple/programmable_switch_event": .int(0)
            ])
        let button = try mapping("button")
        let presses = Fixture.states("WXKG11LM").map { values(button, $0)["stateless_programmable_switch/programmable_switch_event"] }
        #expect(presses == [.int(0), .int(0), .int(1)])
        #expect(button.accessory["stateless_programmable_switch"]?["programmable_switch_event"]?.validValues == [0, 1, 2])
    }

    @Test(
        "colour: color_mode decides which of colour temperature or colour is current; in colour-temperature mode hue and saturation are the white's"
    )
    func colorMode() throws {
        let hue = try mapping("bulb_color_2")
        let states = Fixture.states("7146060PH")
        // 222 mired (4,500 K) is a faint warm white; 454 mired (2,200 K) a deep orange; 153 mired (6,500 K) almost white.
        #expect(
            values(hue, states[1]) == [
                "lightbulb/color_temperature": .int(222), "lightbulb/hue": .float(44), "lightbulb/saturation": .float(18),
            ])
        #expect(
            values(hue, ["color_mode": "color_temp", "color_temp": 454]) == [
                "lightbulb/color_temperature": .int(454), "lightbulb/hue": .float(36), "lightbulb/saturation": .float(68),
            ])
        let daylight = values(hue, ["color_mode": "color_temp", "color_temp": 153])
        #expect((daylight["lightbulb/saturation"]?.doubleValue ?? 100) < 10, "\(daylight)")
        // A bulb without colour has no hue to follow.
        #expect(values(try mapping("bulb"), ["color_mode": "color_temp", "color_temp": 300]) == ["lightbulb/color_temperature": .int(300)])
        let xy = values(hue, states[2])
        #expect(xy["lightbulb/color_temperature"] == nil && xy["lightbulb/hue"] != nil)
        #expect(values(hue, states[3]) == ["lightbulb/hue": .float(250), "lightbulb/saturation": .float(50)])
    }

    @Test("nulls and unknown keys are ignored; a wrong type loses only its own key")
    func badKeys() throws {
        let weather = try mapping("weather_sensor")
        let decoded = weather.decode(["temperature": "hot", "humidity": 40, "battery": nil, "mystery": 1])
        #expect(
            decoded.updates == [
                CharacteristicUpdate(service: "humidity_sensor", characteristic: "current_relative_humidity", value: .int(40))
            ])
        #expect(decoded.errors == [#"temperature: "hot" is not a number"#])
        let bulb = try mapping("bulb")
        #expect(bulb.decode(["state": true]).errors == [#"state: true is not "ON" or "OFF""#])
        #expect(bulb.decode("ON").errors == ["expected a JSON object, got a string"])
    }

    @Test("writes become one /set payload with endpoint suffixes where they belong")
    func encode() throws {
        let bulb = try mapping("bulb")
        let payload = try bulb.encode([
            .init(service: "lightbulb", characteristic: "on", value: .bool(true)),
            .init(service: "lightbulb", characteristic: "brightness", value: .int(100)),
        ])
        #expect(payload.serialized() == #"{"brightness":254,"state":"ON"}"#)
        let slow = try bulb.encode([.init(service: "lightbulb", characteristic: "brightness", value: .int(50))], transition: 0.5)
        #expect(slow.serialized() == #"{"brightness":127,"transition":0.5}"#, "a light runs the transition it is given")
        let wall = try mapping("kitchen_wall_switch")
        #expect(
            try wall.encode([.init(service: "switch_l2", characteristic: "on", value: .bool(true))], transition: 2).serialized()
                == #"{"state_l2":"ON"}"#, "a switch has no transition")
        let relayLights = try Zigbee2MQTTDevicesTests.mapping("kitchen_wall_switch", Zigbee2MQTTOverride(service: .lightbulb))
        let relay = try #require(relayLights.accessory.services.first { $0.type == .lightbulb })
        let relayOn = try relayLights.encode([.init(service: relay.id, characteristic: "on", value: .bool(true))], transition: 2)
        #expect(relayOn["transition"] == nil, "a relay shown as a lightbulb does not dim: Zigbee2MQTT has no transition for it")
        #expect(
            try wall.encode([.init(service: "switch_l2", characteristic: "on", value: .bool(false))]).serialized() == #"{"state_l2":"OFF"}"#
        )
        let curtain = try mapping("curtain")
        #expect(
            try curtain.encode([.init(service: "window_covering", characteristic: "target_position", value: .int(40))]).serialized()
                == #"{"position":40}"#)
        #expect(
            try curtain.encode([.init(service: "window_covering", characteristic: "hold_position", value: .bool(true))]).serialized()
                == #"{"state":"STOP"}"#)
        let radiator = try mapping("bosch_radiator")
        #expect(
            try radiator.encode([.init(service: "thermostat", characteristic: "target_temperature", value: .float(21.5))]).serialized()
                == #"{"occupied_heating_setpoint":21.5}"#)
        #expect(
            try radiator.encode([.init(service: "thermostat", characteristic: "target_heating_cooling_state", value: .int(1))]).serialized()
                == #"{"system_mode":"heat"}"#)
        #expect(throws: Zigbee2MQTTMapping.WriteError.self) {
            try radiator.encode([.init(service: "thermostat", characteristic: "current_temperature", value: .float(1))])
        }
    }

    @Test("hue and saturation go out together; the other half comes from the current value")
    func colorWrite() throws {
        var hue = try mapping("bulb_color_2")
        _ = try hue.accessory.update(service: "lightbulb", characteristic: "saturation", value: .float(80))
        let payload = try hue.encode([.init(service: "lightbulb", characteristic: "hue", value: .float(120))], current: hue.accessory)
        #expect(payload.serialized() == #"{"color":{"hue":120,"saturation":80}}"#)
    }

    @Test("brightness round-trips for every percentage")
    func brightnessRoundTrip() throws {
        let bulb = try mapping("bulb")
        for percent in 0...100 {
            let raw = try bulb.encode([.init(service: "lightbulb", characteristic: "brightness", value: .int(percent))])["brightness"]!
            #expect(values(bulb, ["brightness": raw])["lightbulb/brightness"] == .int(percent), "\(percent)% went out as \(raw)")
        }
    }

    @Test("colour temperature, cover position and thermostat modes round-trip")
    func roundTrips() throws {
        let bulb = try mapping("bulb")
        for mired in stride(from: 250, through: 454, by: 17) {
            let out = try bulb.encode([.init(service: "lightbulb", characteristic: "color_temperature", value: .int(mired))])
            #expect(values(bulb, out)["lightbulb/color_temperature"] == .int(mired))
        }
        let curtain = try mapping("curtain")
        for position in [0, 1, 50, 99, 100] {
            let out = try curtain.encode([.init(service: "window_covering", characteristic: "target_position", value: .int(position))])
            #expect(values(curtain, out)["window_covering/target_position"] == .int(position))
        }
        let radiator = try mapping("bosch_radiator")
        let out = try radiator.encode([.init(service: "thermostat", characteristic: "target_heating_cooling_state", value: .int(1))])
        #expect(values(radiator, out)["thermostat/target_heating_cooling_state"] == .int(1))
    }

    @Test("hue and saturation survive the trip through xy", arguments: Array(stride(from: 0.0, to: 360.0, by: 15.0)))
    func xyRoundTrip(hue: Double) {
        for saturation in [20.0, 50.0, 100.0] {
            let xy = ColorConversion.xy(hue: hue, saturation: saturation)
            let back = ColorConversion.hueSaturation(x: xy.x, y: xy.y)
            let hueError = min(abs(back.hue - hue), 360 - abs(back.hue - hue))
            #expect(hueError < 0.5 && abs(back.saturation - saturation) < 0.5, "\(hue)/\(saturation) came back as \(back)")
        }
    }

    @Test("xy is Zigbee2MQTT's own conversion (Hue's Wide RGB D65 matrix)")
    func xyMatchesZigbee2MQTT() {
        // Z2M publishes {"x":0.2717,"y":0.6585} for rgb(100,200,10): hue 91.58°. Saturation differs a
        // little because Z2M converted at 78 % brightness and HomeKit's colour is at full brightness.
        let back = ColorConversion.hueSaturation(x: 0.2717, y: 0.6585)
        #expect(abs(back.hue - 91.58) < 0.5 && abs(back.saturation - 95) < 2, "\(back)")
        // Z2M's ColorHSV(91.58, 95, 100).toXY(), worked out by hand: rgb(0.5, 1, 0.05) through the same matrix.
        let xy = ColorConversion.xy(hue: 60 * (2 - 90.0 / 190), saturation: 95)
        #expect(abs(xy.x - 0.2695) < 0.0001 && abs(xy.y - 0.6614) < 0.0001, "\(xy)")
    }

    @Test("an xy-only light gets colour as xy; a light per endpoint gets it under its own key")
    func xyOnlyAndEndpointColour() throws {
        let light = try Exposes.device([
            Exposes.specific(
                "light", endpoint: "l1",
                [
                    Exposes.binary("state", on: "ON", off: "OFF", endpoint: "l1", access: 7),
                    [
                        "type": "composite", "name": "color_xy", "property": "color_l1", "endpoint": "l1", "access": 7,
                        "features": [
                            Exposes.numeric("x", access: 7), Exposes.numeric("y", access: 7),
                        ],
                    ],
                ])
        ])
        let payload = try light.encode([
            .init(service: "lightbulb_l1", characteristic: "hue", value: .float(120)),
            .init(service: "lightbulb_l1", characteristic: "saturation", value: .float(100)),
            .init(service: "lightbulb_l1", characteristic: "on", value: .bool(true)),
        ])
        #expect(payload.serialized() == #"{"color_l1":{"x":0.1724,"y":0.7468},"state_l1":"ON"}"#)
        #expect(
            values(light, payload) == [
                "lightbulb_l1/on": .bool(true), "lightbulb_l1/hue": .float(120), "lightbulb_l1/saturation": .float(100),
            ])
    }
}
