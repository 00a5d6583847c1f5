import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("Mapping files: payloads in, payloads out")
struct MappingFileEvaluationTests {
    func accessory(_ service: String, _ yaml: String, availability: String = "") throws -> MQTTAccessoryMapping {
        var set = MappingSet()
        let text =
            "source: mqtt\naccessories:\n  - id: x\n\(availability)    services:\n      - type: \(service)\n        characteristics:\n"
            + yaml
        let diagnostics = set.add(file: "t.yaml", text: text)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        return try #require(set.accessories.first)
    }

    @Test("Fahrenheit out and back in lands on the same Celsius value")
    func fahrenheitRoundTrip() throws {
        let mapping = try accessory(
            "thermostat",
            """
                      target_temperature:
                        state: { topic: s, unit: fahrenheit, round: 1 }
                        set: { topic: c, unit: fahrenheit, round: 2 }
            """)
        let binding = try #require(mapping.bindings.first)
        let characteristic = try #require(mapping.accessory["thermostat"]?["target_temperature"])
        for tenths in stride(from: 100, through: 380, by: 5) {
            let celsius = Double(tenths) / 10
            let payload = try binding.set!.payload(for: .float(celsius), characteristic: characteristic).get()
            #expect(
                try binding.state!.value(from: payload, for: characteristic).get() == .float(celsius),
                "\(celsius) °C went out as \(String(decoding: payload, as: UTF8.self))")
        }
    }

    @Test("inverted positions round-trip across the whole range")
    func invertRoundTrip() throws {
        let mapping = try accessory(
            "window_covering",
            """
                      target_position:
                        state: { topic: s, invert: true }
                        set: { topic: c, invert: true }
            """)
        let binding = try #require(mapping.bindings.first)
        let characteristic = try #require(mapping.accessory["window_covering"]?["target_position"])
        for position in 0...100 {
            let payload = try binding.set!.payload(for: .int(position), characteristic: characteristic).get()
            #expect(String(decoding: payload, as: UTF8.self) == String(100 - position))
            #expect(try binding.state!.value(from: payload, for: characteristic).get() == .int(position))
        }
    }

    @Test("set: clamp before sending, a JSON template with a quoted value")
    func setClampAndTemplate() throws {
        let mapping = try accessory(
            "lightbulb",
            """
                      "on":
                        set: { topic: c, template: '{"state":"{{value}}"}', map: { "true": "ON", "false": "OFF" } }
                      brightness:
                        set: { topic: c, template: '{"brightness":{{value}}}', clamp: [1, 90] }
            """)
        let on = mapping.bindings.first { $0.characteristic == "on" }!
        let brightness = mapping.bindings.first { $0.characteristic == "brightness" }!
        let light = try #require(mapping.accessory["lightbulb"])
        #expect(try on.set!.payload(for: .bool(true), characteristic: light["on"]!).get() == Array(#"{"state":"ON"}"#.utf8))
        #expect(
            try brightness.set!.payload(for: .int(100), characteristic: light["brightness"]!).get() == Array(#"{"brightness":90}"#.utf8))
        #expect(try brightness.set!.payload(for: .int(0), characteristic: light["brightness"]!).get() == Array(#"{"brightness":1}"#.utf8))
    }

    @Test("text put inside JSON quotes is escaped; bare placeholders are not")
    func templateEscaping() throws {
        let mapping = try accessory(
            "switch",
            """
                      "on":
                        set: { topic: c, template: '{"say":"{{value}}","raw":{{value}}}', map: { "true": 'a "b" \\c', "false": "0" } }
            """)
        let binding = try #require(mapping.bindings.first)
        let on = try #require(mapping.accessory["switch"]?["on"])
        let payload = try binding.set!.payload(for: .bool(true), characteristic: on).get()
        #expect(String(decoding: payload, as: UTF8.self) == #"{"say":"a \"b\" \\c","raw":a "b" \c}"#)
    }

    @Test("a state reading outside the characteristic's range is the model's to refuse, not clamped silently")
    func noSilentClamp() throws {
        let mapping = try accessory("lightbulb", "          brightness:\n            state: { topic: s }\n")
        let binding = try #require(mapping.bindings.first)
        let brightness = try #require(mapping.accessory["lightbulb"]?["brightness"])
        let value = try binding.state!.value(from: Array("150".utf8), for: brightness).get()
        #expect(value == .int(150))
        #expect(throws: ValueProblem.self) { try brightness.check(value).get() }
    }

    @Test("availability: plain payloads, a JSON path, and neither value")
    func availability() throws {
        let plain = try accessory(
            "switch", "          \"on\": { state: { topic: s } }\n",
            availability: "    availability: { topic: tele/x/LWT, online: Online, offline: Offline }\n")
        let lwt = try #require(plain.availability)
        #expect(try lwt.isOnline(Array("Online".utf8)).get() == true)
        #expect(try lwt.isOnline(Array("Offline\n".utf8)).get() == false)
        #expect { try lwt.isOnline(Array("online".utf8)).get() } throws: { "\($0)" == "'online' is neither 'Online' nor 'Offline'" }
        let json = try accessory(
            "switch", "          \"on\": { state: { topic: s } }\n",
            availability: "    availability: { topic: x/status, path: state }\n")
        let status = try #require(json.availability)
        #expect(try status.isOnline(Array(#"{"state":"online"}"#.utf8)).get() == true)
        #expect(try status.isOnline(Array(#"{"state":"offline"}"#.utf8)).get() == false)
        #expect { try status.isOnline(Array("online".utf8)).get() } throws: { "\($0)".contains("no value at path 'state'") }
    }
}
