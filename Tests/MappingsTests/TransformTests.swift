import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("Transforms and explicit bindings")
struct TransformTests {
    func binding(_ yaml: String, service: String = "lightbulb") throws -> (MQTTAccessoryMapping, MQTTBinding) {
        var set = MappingSet()
        let diagnostics = set.add(
            file: "t.yaml",
            text: "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: \(service)\n        characteristics:\n" + yaml)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let accessory = try #require(set.accessories.first)
        return (accessory, try #require(accessory.bindings.first))
    }

    func characteristic(_ accessory: MQTTAccessoryMapping, _ binding: MQTTBinding) -> Characteristic {
        accessory.accessory[binding.service]![binding.characteristic]!
    }

    @Test("value maps with a default, both ways")
    func map() throws {
        let (accessory, b) = try binding(
            """
                      current_door_state:
                        state: { topic: s, map: { OPEN: 0, CLOSED: 1 }, default: 4 }
                      target_door_state:
                        state: { topic: t, map: { OPEN: 0, CLOSED: 1 } }
                        set: { topic: c, map: { 0: OPEN, 1: CLOSE } }
            """, service: "garage_door_opener")
        let c = characteristic(accessory, b)
        #expect(try b.state!.value(from: Array("CLOSED".utf8), for: c).get() == .int(1))
        #expect(try b.state!.value(from: Array("JAMMED".utf8), for: c).get() == .int(4))
        let target = accessory.bindings[1]
        let tc = characteristic(accessory, target)
        #expect(throws: Transforms.Failure.self) { try target.state!.value(from: Array("AJAR".utf8), for: tc).get() }
        #expect(try target.set!.payload(for: .int(1), characteristic: tc).get() == Array("CLOSE".utf8))
    }

    @Test("linear scaling with rounding round-trips 0-100 % through 0-255")
    func scale() throws {
        let (accessory, b) = try binding(
            """
                      brightness:
                        state: { topic: s, scale: { from: [0, 255], to: [0, 100] }, round: 0 }
                        set: { topic: c, scale: { from: [0, 100], to: [0, 255] }, round: 0 }
            """)
        let c = characteristic(accessory, b)
        for percent in 0...100 {
            let raw = try b.set!.payload(for: .int(percent), characteristic: c).get()
            #expect(
                try b.state!.value(from: raw, for: c).get() == .int(percent),
                "\(percent) went out as \(String(decoding: raw, as: UTF8.self))")
        }
        #expect(try b.state!.value(from: Array("255".utf8), for: c).get() == .int(100))
    }

    @Test("inversion: bools flip, numbers mirror in the characteristic's range")
    func invert() throws {
        let (accessory, b) = try binding(
            """
                      current_position:
                        state: { topic: s, invert: true }
                      target_position:
                        state: { topic: t, invert: true }
                        set: { topic: c, invert: true }
            """, service: "window_covering")
        let c = characteristic(accessory, b)
        #expect(try b.state!.value(from: Array("30".utf8), for: c).get() == .int(70))
        let target = accessory.bindings[1]
        #expect(try target.set!.payload(for: .int(70), characteristic: characteristic(accessory, target)).get() == Array("30".utf8))
        let (light, on) = try binding("          \"on\":\n            state: { topic: s, invert: true }\n")
        #expect(try on.state!.value(from: Array("true".utf8), for: characteristic(light, on)).get() == .bool(false))
    }

    @Test("Fahrenheit devices, rounding and clamping")
    func unitsRoundClamp() throws {
        let (accessory, b) = try binding(
            """
                      current_temperature:
                        state: { topic: s, unit: fahrenheit, round: 1, clamp: [-20, 60] }
            """, service: "temperature_sensor")
        let c = characteristic(accessory, b)
        #expect(try b.state!.value(from: Array("71.6".utf8), for: c).get() == .float(22))
        #expect(try b.state!.value(from: Array("500".utf8), for: c).get() == .float(60))
        let (thermostat, t) = try binding(
            """
                      target_temperature:
                        state: { topic: s, unit: fahrenheit, round: 1 }
                        set: { topic: c, unit: fahrenheit, round: 0 }
            """, service: "thermostat")
        #expect(try t.set!.payload(for: .float(21.5), characteristic: characteristic(thermostat, t)).get() == Array("71".utf8))
    }

    @Test("JSON paths and set templates")
    func pathsAndTemplates() throws {
        let (accessory, b) = try binding(
            """
                      brightness:
                        state: { topic: s, path: "light[0].level" }
                        set: { topic: c, template: '{"light":{"level":{{value}}}}' }
            """)
        let c = characteristic(accessory, b)
        #expect(try b.state!.value(from: Array(#"{"light":[{"level":42}]}"#.utf8), for: c).get() == .int(42))
        #expect { try b.state!.value(from: Array(#"{"light":[]}"#.utf8), for: c).get() } throws: {
            "\($0)" == "no value at path 'light[0].level'"
        }
        #expect { try b.state!.value(from: Array("level 42".utf8), for: c).get() } throws: { "\($0)".contains("not JSON") }
        #expect(try b.set!.payload(for: .int(80), characteristic: c).get() == Array(#"{"light":{"level":80}}"#.utf8))
    }

    @Test("bare payloads: ON/OFF, true/false and 1/0 are bools; other text needs a map")
    func bareBools() throws {
        let (accessory, b) = try binding("          \"on\":\n            state: { topic: s }\n")
        let c = characteristic(accessory, b)
        for (text, value) in [("ON", true), ("off", false), ("true", true), ("0", false)] {
            #expect(try b.state!.value(from: Array(text.utf8), for: c).get() == .bool(value))
        }
        #expect(throws: Transforms.Failure.self) { try b.state!.value(from: Array("maybe".utf8), for: c).get() }
    }
}
