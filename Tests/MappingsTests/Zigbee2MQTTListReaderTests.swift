import Foundation
import JSON
import Mappings
import Testing

@Suite("A bridge's device list read again: only the devices whose bytes changed are parsed")
struct Zigbee2MQTTListReaderTests {
    static let payload = Fixture.devices.serializedBytes()

    static func read(_ reader: inout Zigbee2MQTTDevice.ListReader, _ bytes: [UInt8]) -> [Zigbee2MQTTDevice]? {
        bytes.withUnsafeBufferPointer { reader.read($0) }
    }

    /// The list parsed as one JSON document, for comparison; nil when it is no JSON array.
    static func whole(_ bytes: [UInt8]) -> [Zigbee2MQTTDevice]? {
        guard let json = try? JSONValue(parsing: bytes), json.arrayValue != nil else { return nil }
        return Zigbee2MQTTDevice.list(from: json)
    }

    /// Where a list's devices keep their exposes: the same place means the same device, not parsed again.
    static func exposes(_ devices: [Zigbee2MQTTDevice]) -> [UnsafePointer<Expose>?] {
        devices.map { $0.exposes.withUnsafeBufferPointer { $0.baseAddress } }
    }

    @Test("the same devices as parsing the whole document; the same bytes again are the same list, not read again")
    func sameList() throws {
        var reader = Zigbee2MQTTDevice.ListReader()
        let first = try #require(Self.read(&reader, Self.payload))
        #expect(first == Self.whole(Self.payload))
        #expect(first.count > 10)
        let again = try #require(Self.read(&reader, Array(Self.payload)))
        #expect(again.withUnsafeBufferPointer { $0.baseAddress } == first.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test("one device renamed: the list as parsed whole, every other device the one read before")
    func oneRenamed() throws {
        var reader = Zigbee2MQTTDevice.ListReader()
        let first = try #require(Self.read(&reader, Self.payload))
        var devices = try #require(Fixture.devices.arrayValue)
        let index = try #require(devices.firstIndex { ($0["definition"]?["exposes"]?.arrayValue?.count ?? 0) > 0 })
        guard case .object(var renamed) = devices[index] else { Issue.record("not an object"); return }
        renamed["friendly_name"] = .string("hall/renamed, \"quoted\" [x] {y}")
        devices[index] = .object(renamed)
        let bytes = JSONValue.array(devices).serializedBytes()
        let other = try #require(Self.read(&reader, bytes))
        #expect(other == Self.whole(bytes))
        #expect(other[index].friendlyName == "hall/renamed, \"quoted\" [x] {y}")
        let before = Self.exposes(first)
        let after = Self.exposes(other)
        for i in first.indices where i != index && !first[i].exposes.isEmpty {
            #expect(after[i] == before[i], "\(first[i].friendlyName) parsed again")
        }

        // A device added at the front and one removed: found by their bytes, not their place.
        devices.insert(devices[index], at: 0)
        devices.removeLast()
        let shifted = JSONValue.array(devices).serializedBytes()
        let moved = try #require(Self.read(&reader, shifted))
        #expect(moved == Self.whole(shifted))
        #expect(Self.exposes(moved)[1...].elementsEqual(after.dropLast()), "the same devices, one place on")
    }

    @Test("a list that does not parse is nil, whichever device breaks it; the next good one is read whole")
    func broken() throws {
        var reader = Zigbee2MQTTDevice.ListReader()
        let first = try #require(Self.read(&reader, Self.payload))
        let text = String(decoding: Self.payload, as: UTF8.self)
        func once(_ text: String, _ what: String, _ with: String) throws -> String {
            let range = try #require(text.range(of: what))
            return text.replacingCharacters(in: range, with: with)
        }
        for broken in [
            String(text.dropLast()), text + "x", try once(text, "},{", "},,{"), try once(text, "\"exposes\":[", "\"exposes\":[}"),
            try once(text, "\"exposes\":[", "\"exposes\":[\""), "[", "{}", "",
        ] {
            #expect(Self.read(&reader, Self.payload) == first)  // every device known, then one broken among them
            #expect(Self.read(&reader, Array(broken.utf8)) == nil, "\(broken.prefix(40))")
        }
        let again = try #require(Self.read(&reader, Self.payload))
        #expect(again == first)
        #expect(Self.exposes(again).elementsEqual(Self.exposes(first)) == false, "read whole: a broken list forgets the last")
        #expect(Self.read(&reader, Array("[]".utf8)) == [])
        #expect(
            Self.read(&reader, Array(" [ 1 , {\"ieee_address\":\"0x1\"} ] ".utf8))
                == Self.whole(Array(" [ 1 , {\"ieee_address\":\"0x1\"} ] ".utf8)))
    }

    @Test("nesting is counted from the list, as when it is parsed whole")
    func depth() {
        var reader = Zigbee2MQTTDevice.ListReader()
        for depth in [JSONValue.maximumDepth - 2, JSONValue.maximumDepth - 1, JSONValue.maximumDepth] {
            let element =
                "{\"friendly_name\":\"a\",\"ieee_address\":\"0x1\",\"x\":" + String(repeating: "[", count: depth)
                + String(repeating: "]", count: depth) + "}"
            let bytes = Array("[\(element)]".utf8)
            #expect(Self.read(&reader, bytes) == Self.whole(bytes), "depth \(depth)")
        }
    }
}
