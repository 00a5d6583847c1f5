import HomeModel
import JSON
import Testing

/// The retained state on `homegate/state/<accessory>` is written straight to bytes. It must be what
/// docs/mqtt-api.md shows, and what clients that compare retained states byte for byte have always
/// had: the JSON object built from the accessory in order (a repeated key keeps its first spelling
/// and its last value), serialized with sorted keys. That object is the reference here.
@Suite("An accessory's state written straight to bytes")
struct StateBytesTests {
    func reference(_ accessory: Accessory) -> [UInt8] {
        var services: [String: JSONValue] = [:]
        for service in accessory.services {
            var values: [String: JSONValue] = [:]
            for characteristic in service.characteristics {
                if let value = characteristic.value { values[characteristic.name] = value.json }
            }
            services[service.id] = .object(values)
        }
        let object: JSONValue = ["reachable": .bool(accessory.reachable), "services": .object(services)]
        return object.serializedBytes()
    }

    @Test("the state's JSON object with sorted keys, unknown values left out")
    func sameAsSerialized() {
        let accessory = Accessory(
            id: "hall", name: "Hall", reachable: false,
            services: [
                Service(
                    id: "thermostat", type: .thermostat,
                    characteristics: [
                        Characteristic(.target_temperature, value: .float(21.5)), Characteristic(.current_temperature),
                        Characteristic(.name, value: .string("Hall \"north\"\n\u{1}é")),
                    ]),
                Service(id: "battery", type: .battery_service, characteristics: [Characteristic(.battery_level, value: .int(-3))]),
                Service(id: "accessory_information", type: .accessory_information, characteristics: []),
            ])
        let expected =
            #"{"reachable":false,"services":{"accessory_information":{},"battery":{"battery_level":-3},"#
            + #""thermostat":{"name":"Hall \"north\"\n\u0001é","target_temperature":21.5}}}"#
        #expect(String(decoding: accessory.statePayload, as: UTF8.self) == expected)
        #expect(accessory.statePayload == reference(accessory))
    }

    @Test("a repeated service id or characteristic name keeps its last known value, as the JSON object does")
    func repeatedKeys() {
        let accessory = Accessory(
            id: "twin", name: "Twin",
            services: [
                Service(id: "b", type: .switch, characteristics: [Characteristic(.on, value: .bool(true))]),
                Service(
                    id: "a", type: .switch,
                    characteristics: [
                        Characteristic(.on, value: .bool(false)), Characteristic(.on, value: .bool(true)), Characteristic(.on),
                    ]),
                Service(id: "b", type: .switch, characteristics: [Characteristic(.on, value: .bool(false))]),
            ])
        #expect(
            String(decoding: accessory.statePayload, as: UTF8.self)
                == #"{"reachable":true,"services":{"a":{"on":true},"b":{"on":false}}}"#)
        #expect(accessory.statePayload == reference(accessory))
    }

    @Test("generated accessories: every one the same bytes both ways")
    func generated() {
        // A 64-bit linear congruential generator (Knuth's MMIX constants): the same accessories every run.
        var state: UInt64 = 17
        func below(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let types: [CharacteristicType] = [.on, .brightness, .current_temperature, .name, .model, .battery_level, .configured_name]
        // "é" twice, precomposed and not: one key to a dictionary, which keeps the first spelling.
        let ids = ["lightbulb", "switch_l1", "switch_l2", "Switch", "ä", "a\"b", "temperature_sensor", "z", "é", "e\u{301}"]
        let values: [CharacteristicValue?] = [
            nil, .bool(true), .bool(false), .int(0), .int(Int.min), .int(254), .float(-0.0), .float(21.25), .float(.infinity),
            .float(.nan), .float(1e300), .float(3), .string(""), .string("tab\there"), .string("e\u{301}"), .string("é"),
        ]
        for _ in 0..<2_000 {
            let services = (0..<below(5)).map { _ in
                Service(
                    id: ids[below(ids.count)], type: .switch,
                    characteristics: (0..<below(6)).map { _ in
                        Characteristic(types[below(types.count)], value: values[below(values.count)])
                    })
            }
            let accessory = Accessory(id: "x", name: "X", reachable: below(2) == 0, services: services)
            let (written, expected) = (accessory.statePayload, reference(accessory))
            let same = written == expected
            #expect(same, "written \(String(decoding: written, as: UTF8.self))\nexpected \(String(decoding: expected, as: UTF8.self))")
        }
    }
}
