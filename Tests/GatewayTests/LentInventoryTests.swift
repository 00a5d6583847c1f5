import Foundation
import HomeModel
import JSON
import Mappings
import Simulator
import Testing

@testable import Gateway

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

        var copied = MQTTFrontEnd(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        let copiedOutput = copied.handle([online, Incoming(topic: "zigbee2mqtt/bridge/devices", payload: payload, retained: true)])

        var lent = MQTTFrontEnd(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        let read = payload.withUnsafeBytes { lent.devices.inventory(lent: "zigbee2mqtt/bridge/devices", $0) }
        // Read for a bridge that a reload has removed since: the front end lets it go.
        let stranger = payload.withUnsafeBytes {
            DeviceSources(mappings: Self.bridge("elsewhere")).inventory(lent: "elsewhere/bridge/devices", $0)
        }
        let lentOutput = lent.handle([
            online, Incoming(topic: "elsewhere/bridge/devices", payload: [], retained: true, read: stranger),
            Incoming(topic: "zigbee2mqtt/bridge/devices", payload: [], retained: true, read: read),
        ])

        #expect(lent.core.accessories.count > 30)
        #expect(lent.core.accessories.map(\.id) == copied.core.accessories.map(\.id))
        let tree = { (output: GatewayOutput) in output.all.first { $0.topic == "homegate/accessories" }?.payload }
        #expect(tree(lentOutput) != nil && tree(lentOutput) == tree(copiedOutput))
        #expect(lent.counters.messages == 3 && lent.counters.oversized == 0)
    }
}
