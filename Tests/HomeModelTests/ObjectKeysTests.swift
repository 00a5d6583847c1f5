import HomeModel
import Testing

@Suite("The one key check every reader of outside objects uses")
struct ObjectKeysTests {
    @Test("unknown keys come back in the order given, each with the nearest taken key")
    func unknownInOrder() {
        let keys = ObjectKeys(
            [(key: "nmae", value: 1), (key: "room", value: 2), (key: "zzz", value: 3), (key: "hme", value: 4)],
            allowed: ["name", "room", "home"])
        #expect(keys.unknown.map(\.key) == ["nmae", "zzz", "hme"])
        #expect(keys.unknown.map(\.suggestion) == [" (did you mean 'name'?)", "", " (did you mean 'home'?)"])
        #expect(keys.unknown.map(\.value) == [1, 3, 4])
        #expect(keys.fields == ["room": 2])
    }

    @Test("required keys that are absent are named; ignored keys are neither taken nor refused")
    func missingAndIgnored() {
        let keys = ObjectKeys(
            sorted: ["transaction": 7, "name": 1], allowed: ["name", "home"], required: ["home", "name"], ignoring: ["transaction"])
        #expect(keys.unknown.isEmpty)
        #expect(keys.missing == ["home"])
        #expect(keys.fields == ["name": 1])
    }

    @Test("a dictionary is checked in sorted order, so the first problem is the same every run")
    func sortedDictionary() {
        let keys = ObjectKeys(sorted: ["b": 0, "a": 0, "c": 0], allowed: [])
        #expect(keys.unknown.map(\.key) == ["a", "b", "c"])
    }

    @Test("suggestions may come from more than the keys this level takes (a flattened configuration key)")
    func widerSuggestions() {
        let keys = ObjectKeys([(key: "mqtt.keepalve", value: 0)], allowed: ["mqtt.url"], suggestions: ["mqtt.url", "mqtt.keepalive"])
        #expect(keys.unknown.first?.suggestion == " (did you mean 'mqtt.keepalive'?)")
    }
}
