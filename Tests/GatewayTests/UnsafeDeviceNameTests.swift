import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite("A Zigbee2MQTT name that is not safe in a topic never becomes one", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct UnsafeDeviceNameTests {
    @Test("devices named \"lamp\\0evil\", \"\" and \"a/+/b\" get no accessory and no /get; the log says why; a safe neighbour works")
    func unsafeNamesRefused() async throws {
        let house = try await House(mappings: [
            "zigbee2mqtt.yaml": "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n",
            "other.yaml": "source: zigbee2mqtt\nbase_topic: other\n",
        ])
        defer { house.stop() }
        let r = house.recorder
        let inventory = try JSONValue(parsing: Data(contentsOf: House.repository.appendingPathComponent("demo/devices.json")))
        var bulb = try #require(inventory.arrayValue?.first { $0["friendly_name"] == "bulb" }?.objectValue)
        func named(_ name: String, _ ieee: String) -> JSONValue {
            bulb["friendly_name"] = .string(name)
            bulb["ieee_address"] = .string(ieee)
            return .object(bulb)
        }
        let mark = r.mark
        let devices: JSONValue = [
            named("lamp\u{0}evil", "0x00158d0000000001"), named("", "0x00158d0000000002"),
            named("a/+/b", "0x00158d0000000003"), named("lamp", "0x00158d0000000004"),
        ]
        try await r.client.publishAndWait("other/bridge/state", Array(#"{"state":"online"}"#.utf8), retain: true)
        try await r.client.publishAndWait("other/bridge/devices", devices.serializedBytes(), retain: true)
        let tree = try await r.wait(for: "homegate/accessories", after: mark) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "lamp" } == true
        }
        let fromOther = tree["accessories"]?.arrayValue?.filter { $0["bridge"] == "other" }.compactMap { $0["id"]?.stringValue } ?? []
        #expect(fromOther == ["lamp"])
        // The safe lamp is asked for its state; the unsafe names are not, not even cut short to "other/lamp".
        try await r.wait(for: "other/lamp/get", after: mark)
        let topics = r.since(mark).map(\.topic)
        #expect(topics.filter { $0 == "other/lamp/get" }.count == 1)
        #expect(!topics.contains { $0.hasPrefix("other//") || $0 == "homegate/state/" || $0.contains("\u{0}") })
        let log = house.gatewayLog
        #expect(log.contains(#""lamp\0evil": its friendly name contains a NUL character"#), "\(log.suffix(2000))")
        #expect(log.contains("its friendly name is empty"))
        #expect(log.contains(#"warning devices: no accessory for other device "a/+/b": its friendly name contains '+' or '#'"#))
    }
}
