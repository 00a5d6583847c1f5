import Gateway
import HomeModel
import JSON
import Testing

/// A characteristic's event is written straight to bytes on the hot path. Its payload must be what
/// docs/mqtt-api.md shows: a compact JSON object with sorted keys, for every value, previous value,
/// source and name. The reference is that object built as a `JSONValue` and serialized.
@Suite("Characteristic events written straight to bytes")
struct EventBytesTests {
    func reference(_ change: CharacteristicChange, time: String) -> [UInt8] {
        let object: JSONValue = [
            "accessory": .string(change.accessory), "service": .string(change.service), "characteristic": .string(change.characteristic),
            "value": change.value.json, "previous": change.previous?.json ?? .null, "source": .string(change.source.description),
            "time": .string(time),
        ]
        return object.serializedBytes()
    }

    @Test("the same bytes as the event's JSON object serialized with sorted keys")
    func sameAsSerialized() {
        let values: [CharacteristicValue] = [
            .bool(true), .int(-7), .int(Int.max), .float(21.5), .float(-0.0), .float(.nan), .float(1e-7), .string("on \"x\"\n"),
            .string("é"), .string(""),
        ]
        let sources: [ChangeSource] = [.device, .api, .actionSet("evening"), .trigger("motion \"hall\"")]
        let names = ["hall_light", "lightbulb", "Küche", "a\\b", "t\u{7}"]
        var checked = 0
        for (n, value) in values.enumerated() {
            for previous in [nil] + values.prefix(4).map(Optional.some) {
                for source in sources {
                    let change = CharacteristicChange(
                        accessory: names[n % names.count], service: names[(n + 1) % names.count],
                        characteristic: names[(n + 2) % names.count], value: value, previous: previous, source: source)
                    let time = n.isMultiple(of: 2) ? "2026-11-26T11:45:00.123Z" : "t\"\n"
                    let written = HomeJSON.eventPayload(.characteristic(change), time: time)
                    let expected = reference(change, time: time)
                    let same = written == expected
                    #expect(
                        same, "written \(String(decoding: written, as: UTF8.self))\nexpected \(String(decoding: expected, as: UTF8.self))")
                    checked += 1
                }
            }
        }
        #expect(checked == 200)
        let change = CharacteristicChange(
            accessory: "hall_light", service: "lightbulb", characteristic: "on", value: .bool(true), previous: .bool(false),
            source: .trigger("motion"))
        #expect(
            String(decoding: HomeJSON.eventPayload(.characteristic(change), time: "2026-11-26T11:45:00.123Z"), as: UTF8.self)
                == #"{"accessory":"hall_light","characteristic":"on","previous":false,"service":"lightbulb","source":"trigger:motion","#
                + #""time":"2026-11-26T11:45:00.123Z","value":true}"#)
    }
}
