import Gateway
import HomeModel
import JSON
import Testing

/// A characteristic's event is written straight to bytes on the hot path; the bytes must be what
/// serializing its JSON gives, for every value, previous value, source and name.
@Suite("Characteristic events written straight to bytes")
struct EventBytesTests {
    @Test("the same bytes as serializing the event's JSON")
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
                    let serialized = HomeJSON.json(.characteristic(change), time: time).serializedBytes()
                    let written = HomeJSON.eventBytes(change, time: time)
                    let same = written == serialized
                    #expect(
                        same,
                        "written \(String(decoding: written, as: UTF8.self))\nserialized \(String(decoding: serialized, as: UTF8.self))")
                    checked += 1
                }
            }
        }
        #expect(checked == 200)
        let change = CharacteristicChange(
            accessory: "hall_light", service: "lightbulb", characteristic: "on", value: .bool(true), previous: .bool(false),
            source: .trigger("motion"))
        #expect(
            String(decoding: HomeJSON.eventBytes(change, time: "2026-11-26T11:45:00.123Z"), as: UTF8.self)
                == #"{"accessory":"hall_light","characteristic":"on","previous":false,"service":"lightbulb","source":"trigger:motion","#
                + #""time":"2026-11-26T11:45:00.123Z","value":true}"#)
    }
}
