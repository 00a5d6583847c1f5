import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("Every Zigbee2MQTT fixture through the mapping and into the home model")
struct Zigbee2MQTTFixtureTests {
    /// State fixture → the device in devices.json it belongs to.
    static let stateFiles: [(model: String, device: String)] = [
        ("LED1545G12", "bulb"), ("7146060PH", "bulb_color_2"), ("324131092621", "remote"), ("WXKG11LM", "button"),
        ("WSDCGQ11LM", "weather_sensor"), ("ZNCZ02LM", "power_plug"), ("TS0002", "kitchen_wall_switch"),
        ("MCCGQ11LM", "front_door_contact"), ("RTCGQ11LM", "occupancy_sensor"), ("JTYJ-GD-01LM_BW", "hallway_smoke_detector"),
        ("ZNCLDJ11LM", "curtain"), ("BTH-RA", "bosch_radiator"),
    ]

    @Test("every state message decodes, and every value fits the characteristic's metadata", arguments: stateFiles)
    func states(model: String, device: String) throws {
        var mapping = try Zigbee2MQTTDevicesTests.mapping(device)
        for payload in Fixture.states(model) {
            let (updates, errors) = mapping.decode(payload)
            if payload["color"]?["x"] == 100 {
                // Z2M echoes an xy outside the CIE diagram that a test fed it; that key alone is refused.
                #expect(errors == [#"color: {"x":100,"y":50} has x and y outside 0…1"#])
                #expect(updates.contains { $0.characteristic == "brightness" })
            } else {
                #expect(errors.isEmpty, "\(model): \(errors)")
            }
            for update in updates {
                #expect(throws: Never.self, "\(model): \(update)") {
                    _ = try mapping.accessory.update(service: update.service, characteristic: update.characteristic, value: update.value)
                }
            }
        }
    }

    @Test("a real capture with color_sync: color_mode color_temp wins, hue and saturation follow it; h/s duplicates are understood")
    func colorSyncCapture() throws {
        let hue = try Zigbee2MQTTDevicesTests.mapping("bulb_color_2")
        let capture = try #require(Fixture.states("7146060PH").last)
        let updates = hue.decode(capture).updates.map { "\($0.characteristic)=\($0.value)" }
        #expect(Set(updates) == ["on=true", "brightness=39", "color_temperature=454", "hue=36.0", "saturation=68.0"])
        let colour = hue.decode(["color": ["h": 27, "s": 92]]).updates.map { "\($0.characteristic)=\($0.value)" }
        #expect(Set(colour) == ["hue=27.0", "saturation=92.0"])
    }

    @Test("Z2M's optimistic echoes of /set decode without errors")
    func setEchoes() throws {
        let hue = try Zigbee2MQTTDevicesTests.mapping("bulb_color_2")
        for command in Fixture.json("set-get-commands").arrayValue ?? [] {
            guard command["topic"]?.stringValue?.hasPrefix("zigbee2mqtt/bulb_color/") == true, let echo = command["published_state"] else {
                continue
            }
            let errors = hue.decode(echo).errors
            #expect(errors.isEmpty || echo["color"]?["x"] == 100, "\(echo): \(errors)")
        }
    }

    @Test("every readable and writable target exists; every write decodes back to what was written")
    func writeRoundTrips() throws {
        for device in Zigbee2MQTTDevicesTests.devices where device.skipReason == nil {
            let mapping = try Zigbee2MQTTDevicesTests.mapping(device.friendlyName)
            for target in mapping.readers.values.flatMap({ $0.map(\.target) }) {
                #expect(mapping.accessory[target.service]?[target.characteristic] != nil, "\(device.friendlyName): \(target)")
            }
            for target in mapping.writers.keys {
                let characteristic = try #require(mapping.accessory[target.service]?[target.characteristic])
                #expect(characteristic.type.isWritable, "\(device.friendlyName): \(target) is not writable")
                for value in Self.samples(characteristic) {
                    let out = try mapping.encode([.init(service: target.service, characteristic: target.characteristic, value: value)])
                    guard mapping.readers.values.contains(where: { $0.contains { $0.target == target } }) else { continue }  // hold_position
                    let back = mapping.decode(out).updates.first {
                        $0.service == target.service && $0.characteristic == target.characteristic
                    }
                    var difference = abs((back?.value.doubleValue ?? .nan) - (value.doubleValue ?? .nan))
                    if target.characteristic == "hue" { difference = min(difference, 360 - difference) }  // 360° is 0°
                    #expect(
                        back?.value == value || difference < 1,
                        "\(device.friendlyName): \(target) \(value) went out as \(out) and came back as \(String(describing: back))")
                }
            }
        }
    }

    /// The ends and the middle of what the characteristic accepts.
    static func samples(_ characteristic: Characteristic) -> [CharacteristicValue] {
        switch characteristic.type.format {
        case .bool: return [.bool(true), .bool(false)]
        case .string: return (characteristic.choices ?? []).map(CharacteristicValue.string)
        case .float:
            let (low, high) = (characteristic.minValue ?? 0, characteristic.maxValue ?? 100)
            let step = characteristic.minStep ?? 1
            return [low, low + ((high - low) / 2 / step).rounded() * step, high].map(CharacteristicValue.float)
        default:
            if let valid = characteristic.validValues { return valid.map(CharacteristicValue.int) }
            let (low, high) = (Int(characteristic.minValue ?? 0), Int(characteristic.maxValue ?? 100))
            return [low, (low + high) / 2, high].map(CharacteristicValue.int)
        }
    }
}
