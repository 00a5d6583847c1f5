import Foundation
import GatewayCore
import GatewayTesting
import JSON
import Logging
import Matter
import Testing

@testable import MatterBridge

/// The bridge following the house over the surface in memory (`InMemoryGateway`): a real core with
/// the demo's Zigbee2MQTT devices and a node with no network, as `serve` builds it.
@Suite("The Matter bridge follows the house: changes into attributes, and a snapshot when it fell behind")
struct FollowTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The demo house, its bridge online and its device list heard, the bulb on at 10 %.
    static func house() throws -> InMemoryGateway {
        let gateway = InMemoryGateway()
        gateway.device("zigbee2mqtt/bridge/state", ["state": "online"])
        let devices = try Data(contentsOf: repository.appendingPathComponent("demo/devices.json"))
        gateway.device("zigbee2mqtt/bridge/devices", try JSONValue(parsing: Array(devices)))
        gateway.device("zigbee2mqtt/bulb", ["state": "ON", "brightness": 25])
        return gateway
    }

    /// The bulb's CurrentLevel as the node serves it.
    static func level(_ node: MatterNode, _ endpoint: UInt16) -> TLVValue? {
        node.model.endpoints[endpoint]?[Cluster.levelControl]?.attributes[0x0000]
    }

    /// Waits for the node to serve `expected` (the bridge follows in its own task).
    static func served(_ node: MatterNode, _ endpoint: UInt16, _ expected: TLVValue) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while level(node, endpoint) != expected {
            guard ContinuousClock.now < deadline else {
                Issue.record("CurrentLevel is \(String(describing: level(node, endpoint))), not \(expected), after 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test(
        "more changes than the feed holds: the bridge lays itself out from a snapshot, serving the last values; then it follows change by change"
    )
    func overflow() async throws {
        let house = try Self.house()
        let bridge = MatterBridge(
            access: house, settings: GatewayConfiguration.Matter(), control: nil, logger: Logger(label: "test"), feedCapacity: 4)
        let arrivals = bridge.feed.start()
        defer { bridge.feed.stop() }
        let layout = try await bridge.lay(await house.snapshot())
        let bulb = try #require(layout.byAccessory["bulb"]?.first)
        let node = MatterNode(model: RootNode.model(name: "homegate", layout: layout), attestation: nil)
        #expect(Self.level(node, bulb) == .unsigned(25))

        // Ten changes before the bridge takes any: the feed of four drops what it cannot hold.
        for brightness in [30, 40, 50, 60, 70, 80, 90, 100, 110, 127] {
            house.device("zigbee2mqtt/bulb", ["brightness": .integer(brightness)])
        }
        #expect(bridge.feed.counts.dropped > 0)
        let snapshots = house.snapshots
        let following = Task { await bridge.follow(arrivals, from: house.treeChanges.generation, node: node) }
        defer { following.cancel() }
        try await Self.served(node, bulb, .unsigned(127))  // 50 %
        #expect(house.snapshots == snapshots + 1, "the values came from one snapshot")

        // Caught up: a change is taken in as an event, with no snapshot.
        house.device("zigbee2mqtt/bulb", ["brightness": 203])
        try await Self.served(node, bulb, .unsigned(203))  // 80 %
        #expect(house.snapshots == snapshots + 1)
        bridge.feed.stop()  // the arrivals end, and with them the following
        await following.value
    }
}
