import Foundation
import HomeModel
import JSON
import Mappings
import Mosquitto
import Simulator
import Testing

@testable import Gateway
@testable import GatewayCore

@Suite("A bridge's device list read where the network thread holds it")
struct LentInventoryTests {
    static func bridge(_ base: String) -> MappingSet {
        var mappings = MappingSet()
        #expect(mappings.add(file: "z.yaml", text: "source: zigbee2mqtt\nbase_topic: \(base)\n").isEmpty)
        return mappings
    }

    @Test("read in place or copied, a device list makes the same home; one for a base that is no bridge is ignored")
    func sameHome() throws {
        let mappings = Self.bridge("zigbee2mqtt")
        let inventory = try JSONValue(parsing: Data(contentsOf: House.repository.appendingPathComponent("demo/devices.json")))
        let payload = JSONValue.array(SimulatedBridge.generated(count: 40, from: inventory.arrayValue ?? [])).serializedBytes()
        let online = Incoming(topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"online"}"#.utf8))

        var copied = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        let copiedOutput = copied.handleStored([online, Incoming(topic: "zigbee2mqtt/bridge/devices", payload: payload, retained: true)])

        var lent = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        let read = payload.withUnsafeBytes { lent.devices.inventory(lent: "zigbee2mqtt/bridge/devices", $0) }
        // Read for a bridge that a reload has removed since: the front end lets it go.
        let stranger = payload.withUnsafeBytes {
            DeviceSources(mappings: Self.bridge("elsewhere")).inventory(lent: "elsewhere/bridge/devices", $0)
        }
        let lentOutput = lent.handleStored([
            online, Incoming(topic: "elsewhere/bridge/devices", payload: [], retained: true, read: stranger),
            Incoming(topic: "zigbee2mqtt/bridge/devices", payload: [], retained: true, read: read),
        ])

        #expect(lent.core.accessories.count > 30)
        #expect(lent.core.accessories.map(\.id) == copied.core.accessories.map(\.id))
        let tree = { (output: [Outgoing]) in output.first { $0.topic == "homegate/accessories" }?.payload }
        #expect(tree(lentOutput) != nil && tree(lentOutput) == tree(copiedOutput))
        #expect(lent.counters.messages == 3 && lent.counters.oversized == 0)
    }

    @Test(
        "the same bytes as a bridge's last list are that list again, not read twice; in other bytes only what changed is read; a bridge removed is forgotten"
    )
    func sameBytesAgain() throws {
        let inventory = try JSONValue(parsing: Data(contentsOf: House.repository.appendingPathComponent("demo/devices.json")))
        let payload = JSONValue.array(SimulatedBridge.generated(count: 40, from: inventory.arrayValue ?? [])).serializedBytes()
        let reader = InventoryReader(DeviceSources(mappings: Self.bridge("zigbee2mqtt")))
        let read = { (bytes: [UInt8]) -> [Zigbee2MQTTDevice]? in
            guard case .devices("zigbee2mqtt", let devices)? = bytes.withUnsafeBytes({ reader.read("zigbee2mqtt/bridge/devices", $0) })
            else { return nil }
            return devices
        }
        let storage = { (devices: [Zigbee2MQTTDevice]?) in devices?.withUnsafeBufferPointer { $0.baseAddress } }
        let first = try #require(read(payload))
        #expect(first.count == 40)
        let again = try #require(read(Array(payload)))  // equal bytes in a buffer of their own
        #expect(storage(again) == storage(first), "not parsed again: the same list")

        var renamed = payload
        let at = try #require(renamed.firstRange(of: Array(#""friendly_name":""#.utf8)))
        renamed[at.upperBound] = UInt8(ascii: "Z")  // one byte different: one device's name
        let other = try #require(read(renamed))
        #expect(storage(other) != storage(first))
        #expect(other.count == 40 && other != first)
        let exposes = { (device: Zigbee2MQTTDevice) in device.exposes.withUnsafeBufferPointer { $0.baseAddress } }
        let kept = first.indices.filter { !first[$0].exposes.isEmpty && other[$0] == first[$0] }
        #expect(
            kept.count >= 30 && kept.allSatisfy { exposes(other[$0]) == exposes(first[$0]) },
            "the devices that did not change are not read again")

        // A list that does not parse is said to, and is not the last list.
        guard case .unreadable? = Array("[{".utf8).withUnsafeBytes({ reader.read("zigbee2mqtt/bridge/devices", $0) }) else {
            Issue.record("a broken list is read"); return
        }
        let afterBroken = try #require(read(renamed))
        #expect(storage(afterBroken) != storage(other), "read again after a broken one")

        reader.update(DeviceSources(mappings: Self.bridge("elsewhere")))
        #expect(payload.withUnsafeBytes { reader.read("zigbee2mqtt/bridge/devices", $0) } == nil)
        reader.update(DeviceSources(mappings: Self.bridge("zigbee2mqtt")))
        let addedAgain = try #require(read(payload))
        #expect(storage(addedAgain) != storage(first), "a bridge removed and added again reads its list")
    }

    @Test(
        "over a real broker: a bridge's large device list again, byte for byte, publishes nothing; a device renamed in it, its accessory's state and the tree, not every state"
    )
    func sameListOverTheBroker() async throws {
        let house = try await House(simulatorArguments: ["--generate", "60"], startGateway: false)
        defer { house.stop() }
        try house.startGateway()
        let tree = try await house.recorder.wait(for: "homegate/accessories") { ($0["accessories"]?.arrayValue?.count ?? 0) >= 50 }
        // The start's `added` events wait for the store (the device list is written with them), where
        // the barrier's read does not: they are start-up's, and must be in before the mark.
        let placed = (tree["accessories"]?.arrayValue ?? []).filter { $0["bridge"] == "zigbee2mqtt" }.compactMap { $0["id"]?.stringValue }
        let deadline = ContinuousClock.now + .seconds(20)
        while Set(placed).subtracting(house.recorder.messages.compactMap { message -> String? in
            guard message.topic.hasPrefix("homegate/event/accessory/"), message.payloadString.contains(#""change":"added""#) else { return nil }
            return String(message.topic.dropFirst("homegate/event/accessory/".count))
        }).isEmpty == false, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        var reportsFrom = house.recorder.mark
        try await house.barrier()
        let list = try #require(house.recorder.messages(on: "zigbee2mqtt/bridge/devices").last)
        #expect(list.payload.count >= 16 * 1024, "large enough to be read where the network thread holds it")

        // What homegate published since `mark` that no device report since `reportsFrom` accounts for:
        // the start-up's state requests may still be answered meanwhile, and a device that reports
        // has its state published, list or no list. `reportsFrom` is taken before the barrier that
        // precedes `mark`: a report seen before it was handled before that barrier was answered.
        // In this generated house an accessory's id is its device's friendly name.
        func unexplained(since mark: Int) -> Set<String> {
            var reported: Set<Substring> = []
            for message in house.recorder.since(reportsFrom) {
                let parts = message.topic.split(separator: "/", omittingEmptySubsequences: false)
                if parts.count == 2, parts[0] == "zigbee2mqtt", parts[1] != "bridge" { reported.insert(parts[1]) }
            }
            return Set(
                house.recorder.since(mark).map(\.topic).filter { topic in
                    guard topic.hasPrefix("homegate/"), !topic.hasPrefix("homegate/request/"), !topic.hasPrefix("homegate/response/")
                    else { return false }  // the barrier's own
                    let parts = topic.split(separator: "/")
                    return !((parts[1] == "state" || parts[1] == "event") && reported.contains(parts[2]))
                })
        }

        var mark = house.recorder.mark
        try await house.recorder.client.publishAndWait("zigbee2mqtt/bridge/devices", list.payload, qos: .atLeastOnce)
        let beforeBarrier = house.recorder.mark
        try await house.barrier()  // answered after the list is handled, and after anything it published
        #expect(unexplained(since: mark).isEmpty, "\(unexplained(since: mark))")

        reportsFrom = beforeBarrier
        mark = house.recorder.mark
        try await house.recorder.publish("zigbee2mqtt/bridge/request/device/rename", #"{"from":"bulb_0000","to":"bulb_moved"}"#)
        try await house.recorder.wait(for: "homegate/accessories", after: mark)
        try await house.barrier()
        let states = unexplained(since: mark).filter { $0.hasPrefix("homegate/state/") }
        #expect(states.isSubset(of: ["homegate/state/bulb_0000"]), "\(states)")
    }
}
