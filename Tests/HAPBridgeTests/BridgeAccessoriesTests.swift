import Foundation
import GatewayCore
import GatewayTesting
import HAP
import HomeModel
import JSON
import Logging
import Testing

@testable import HAPBridge

/// One bridge's view of the house over the surface in memory (`InMemoryGateway`): a real core with
/// the demo's Zigbee2MQTT devices, no broker, no database, no HAP server.
@Suite("A HomeKit bridge over the gateway's surface: events, layout, reads and writes")
struct BridgeAccessoriesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let lampOn = CharacteristicPath(accessory: "bulb", service: "lightbulb", characteristic: "on")

    static func demoDevices() throws -> JSONValue {
        try JSONValue(parsing: Array(try Data(contentsOf: repository.appendingPathComponent("demo/devices.json"))))
    }

    /// The demo house, its bridge online and its device list heard.
    static func house() throws -> InMemoryGateway {
        let gateway = InMemoryGateway()
        gateway.device("zigbee2mqtt/bridge/state", ["state": "online"])
        gateway.device("zigbee2mqtt/bridge/devices", try demoDevices())
        return gateway
    }

    static func bridge(_ access: any GatewayAccess) async throws -> BridgeAccessories {
        let registry = try await IdentifierRegistry(
            storage: IdentifierStorage(storage: MemoryStorage()), logger: Logger(label: "test"))
        return BridgeAccessories(
            access: access, registry: registry, index: 0,
            bridge: BridgeIdentity(name: "homegate", serialNumber: "0E:12:34:56:78:9A", firmware: "0.1.0"), logger: Logger(label: "test"))
    }

    @Test("a device's change reaches the bridge's event feed, and the layout it is taken into answers the read")
    func valueThroughFeed() async throws {
        let house = try Self.house()
        let bridge = try await Self.bridge(house)
        let feed = PeerEventFeed.homeKit(capacity: 100)
        house.events.attach(feed)
        var arrivals = feed.start().makeAsyncIterator()
        let id = try #require(await bridge.refresh().ids[Self.lampOn])
        let snapshots = house.snapshots

        house.device("zigbee2mqtt/bulb", ["state": "ON"])
        #expect(await arrivals.next() != nil)
        let (events, overflowed) = feed.take()
        #expect(!overflowed)
        let runs = await bridge.take(events)
        #expect(runs.flatMap(\.changes).contains(HAPCharacteristicChange(id: id, value: .bool(true))))
        #expect(try await bridge.read([id])[id]?.get() == .bool(true))
        house.device("zigbee2mqtt/bulb", ["state": "OFF"])
        _ = await bridge.take(feed.take().events)
        #expect(try await bridge.read([id])[id]?.get() == .bool(false))
        #expect(house.snapshots == snapshots, "reads come from the layout, not from a snapshot")
    }

    @Test("a write goes to the core as the HomeKit write of that characteristic, and on to the device")
    func writeToPerform() async throws {
        let house = try Self.house()
        let bridge = try await Self.bridge(house)
        let id = try #require(await bridge.refresh().ids[Self.lampOn])
        let statuses = await bridge.write([HAPWrite(id: id, value: .bool(true))], from: HAPConnectionID(rawValue: 7))
        #expect(statuses[id] == .success)
        guard case .values(.write(let requests, let source))? = house.performed.last else {
            Issue.record("no write performed: \(house.performed)")
            return
        }
        #expect(source == .hap)
        #expect(requests == [WriteRequest(accessory: "bulb", service: "lightbulb", characteristic: "on", value: true)])
        #expect(house.sent.contains { $0.topic == "zigbee2mqtt/bulb/set" && (try? JSONValue(parsing: $0.payload))?["state"] == "ON" })
    }

    @Test("the tree laid out again counts as a change of the accessory set only when the set changed")
    func shapeOnlyOnRealChange() async throws {
        let house = try Self.house()
        let bridge = try await Self.bridge(house)
        await bridge.refresh()
        #expect(await bridge.takeShapeChange().changed == false, "the first accessory set published is no change")
        let generation = house.treeChanges.generation

        let renamed = await house.perform(.accessories(.rename("bulb", to: "Desk lamp")))
        #expect(renamed.error == nil)
        #expect(house.treeChanges.generation > generation, "a rename changes the tree")
        await bridge.refresh()
        #expect(await bridge.takeShapeChange().changed == false, "a rename keeps the accessory set")

        var devices = try #require(try Self.demoDevices().arrayValue)
        var plug = try #require(devices.first { $0["friendly_name"] == "power_plug" }?.objectValue)
        plug["friendly_name"] = "second_plug"
        plug["ieee_address"] = "0x00124b00ffffffff"
        devices.append(.object(plug))
        house.device("zigbee2mqtt/bridge/devices", .array(devices))
        let layout = await bridge.refresh()
        #expect(layout.accessories.count == (await house.snapshot().accessories.count) + 1)
        #expect(await bridge.takeShapeChange().changed == true, "a device joined")
    }

    @Test("accessories known from the last run are listed before their bridge speaks, and read as not responding")
    func knownButUnreachable() async throws {
        var home = StoredHome(structure: .initial())
        home.inventories = [StoredInventory(baseTopic: "zigbee2mqtt", devices: try Self.demoDevices(), groups: nil)]
        let house = InMemoryGateway(stored: home)
        #expect(await house.inventoriesHeard() == false)
        let bridge = try await Self.bridge(house)
        let layout = await bridge.refresh()
        let id = try #require(layout.ids[Self.lampOn], "the lamp is listed")
        #expect(layout.reachable["bulb"] == false)
        let read = await bridge.read([id])[id]
        #expect(read.map { if case .failure(.serviceCommunicationFailure) = $0 { true } else { false } } == true)
    }
}
