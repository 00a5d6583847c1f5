import Foundation
import HomeModel
import JSON
import Mappings
import Simulator
import Testing

@testable import Gateway
@testable import GatewayCore

@Suite("A flapping bridge costs one event per accessory per batch, not one per flap")
struct FlappingBridgeTests {
    /// The core over 201 simulated devices, as the gateway holds it after start.
    static func core() throws -> MQTTPipeline {
        var mappings = MappingSet()
        #expect(mappings.add(file: "z.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        var core = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        let inventory = try JSONValue(parsing: Data(contentsOf: House.repository.appendingPathComponent("demo/devices.json")))
        let devices = SimulatedBridge.generated(count: 201, from: inventory.arrayValue ?? [])
        _ = core.handleStored([
            Incoming(topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"online"}"#.utf8)),
            Incoming(topic: "zigbee2mqtt/bridge/devices", payload: JSONValue.array(devices).serializedBytes()),
        ])
        return core
    }

    @Test("10,000 offline/online bridge states in one batch: at most one reachability event and one state per accessory")
    func flapping() throws {
        var core = try Self.core()
        let accessories = core.core.accessories.count
        #expect(accessories > 150)
        let flaps = (0..<10_000).map { i in
            Incoming(
                topic: "zigbee2mqtt/bridge/state", payload: Array((i % 2 == 0 ? #"{"state":"offline"}"# : #"{"state":"online"}"#).utf8))
        }
        let output = core.handleStored(flaps + [Incoming(topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"offline"}"#.utf8))])
        let all = output
        let reachability = all.filter { $0.topic.hasPrefix("homegate/event/accessory/") && $0.text.contains(#""change":"reachability""#) }
        let states = all.filter { $0.topic.hasPrefix("homegate/state/") }
        #expect(reachability.count <= accessories, "\(reachability.count) reachability events")
        #expect(states.count <= accessories)
        #expect(reachability.allSatisfy { $0.text.contains(#""reachable":false"#) }, "the batch ends offline")
        #expect(core.core.accessories.allSatisfy { !$0.reachable || $0.bridge != "zigbee2mqtt" })

        // A batch that ends where it began announces nothing.
        let none = core.handleStored([
            Incoming(topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"online"}"#.utf8)),
            Incoming(topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"offline"}"#.utf8)),
        ])
        #expect(!none.contains { $0.text.contains(#""change":"reachability""#) })
    }
}
