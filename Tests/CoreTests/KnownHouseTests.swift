import Foundation
import HomeModel
import JSON
import Mappings
import Persistence
import Testing

@testable import Gateway
@testable import GatewayCore

/// The house known at start: each Zigbee2MQTT bridge's lists are stored, the accessories placed
/// from them before the broker speaks, and only an online bridge's list removes one.
@Suite("The house known at start, and only a deliberate removal removes")
struct KnownHouseTests {
    /// A home that ran with the demo's devices (the bulb moved to the attic, reporting), stored in
    /// a database and read back: what the next start finds.
    static func storedHome() async throws -> StoredHome {
        var home = try TestHome()
        home.device("zigbee2mqtt/bridge/groups", .array(try groups()))
        _ = try home.ok(.structure(.addRoom(name: "Attic", home: nil)))
        _ = try home.ok(.accessories(.assignRoom(accessory: "bulb", room: "attic", home: nil)))
        home.device("zigbee2mqtt/bulb", ["state": "ON", "brightness": 254])
        #expect(home.stored.inventories.contains("zigbee2mqtt"), "the lists are among what the core stores")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-known-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let store = try SQLiteHomeStore(path: file)
        try await store.write(home.stored)
        let loaded = try #require(try store.load())
        store.close()
        return loaded
    }

    static func groups() throws -> [JSONValue] {
        let bytes = Array(try Data(contentsOf: TestHome.repository.appendingPathComponent("demo/groups.json")))
        return try #require(try JSONValue(parsing: bytes).arrayValue)
    }

    static func unreachable(_ core: HomeCore) -> [String] { core.accessories.filter { !$0.reachable }.map(\.id) }

    static func bytes(_ json: JSONValue) -> [UInt8] { json.serializedBytes() }

    /// A core started on `stored` with nothing from the broker yet.
    static func started(_ stored: StoredHome) -> (HomeCore, DeviceSources) {
        var mappings = MappingSet()
        #expect(mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        let core = HomeCore(mappings: mappings, stored: stored, now: TestHome.start)
        return (core, DeviceSources(mappings: mappings))
    }

    @Test("a device and a group list stored and read back are the same lists, scenes per endpoint and all")
    func listsRoundTrip() throws {
        for file in ["demo/devices.json", "Tests/MappingsTests/Fixtures/devices.json", "Tests/MappingsTests/Fixtures/corpus/devices.json"] {
            let bytes = Array(try Data(contentsOf: TestHome.repository.appendingPathComponent(file)))
            let devices = try #require(try JSONValue(parsing: bytes).arrayValue).compactMap(Zigbee2MQTTDevice.init(json:))
            #expect(devices.count > 5)
            let groups = try Self.groups().compactMap(Zigbee2MQTTGroup.init(json:))
            let stored = Zigbee2MQTTInventory.stored(base: "zigbee2mqtt", devices: devices, groups: groups)
            // Through text, as the database keeps it and hands it back.
            let (text, groupsText) = (stored.devicesText, stored.groupsText)
            let again = StoredInventory(baseTopic: "zigbee2mqtt", devicesText: { text }, groupsText: { groupsText })
            let (readDevices, readGroups) = try #require(Zigbee2MQTTInventory.lists(again))
            #expect(readDevices == devices, "\(file)")
            #expect(readGroups == groups)
            // As values, as tests and imports give them.
            let values = StoredInventory(baseTopic: "zigbee2mqtt", devices: stored.devices, groups: stored.groups)
            #expect(try #require(Zigbee2MQTTInventory.lists(values)).devices == devices)
        }
        #expect(Zigbee2MQTTInventory.lists(StoredInventory(baseTopic: "z", devices: [], groups: nil))?.groups == nil)
        let brokenText = Array(#"[{"ieee_address":"0x1"},{]"#.utf8)
        let broken = StoredInventory(baseTopic: "z", devicesText: { brokenText }, groupsText: { nil })
        #expect(Zigbee2MQTTInventory.lists(broken) == nil, "an entry that is not JSON: the list cannot be read")
    }

    @Test("a list written for the database an entry at a time is the text of the whole list as one value, over many pieces too")
    func listText() throws {
        let bytes = Array(try Data(contentsOf: TestHome.repository.appendingPathComponent("demo/devices.json")))
        let devices = try #require(try JSONValue(parsing: bytes).arrayValue).compactMap(Zigbee2MQTTDevice.init(json:))
        let many = Array(repeating: devices, count: 200).flatMap { $0 }
        for list in [[], Array(devices.prefix(1)), devices, many] {
            let text = Zigbee2MQTTInventory.text(list) { Zigbee2MQTTInventory.json($0) }
            #expect(text == JSONValue.array(list.map { Zigbee2MQTTInventory.json($0) }).serializedBytes(), "\(list.count) devices")
        }
        #expect(Zigbee2MQTTInventory.stored(base: "z", devices: many, groups: nil).devicesText.count > 3 << 20, "more than a few pieces")
    }

    @Test("a device list that cannot be read stores nothing, and the list the core would store stays the good one")
    func badListStoresNothing() async throws {
        var (core, sources) = Self.started(try await Self.storedHome())
        let good = try TestHome.demoDeviceBytes()
        _ = core.handle(sources.read("zigbee2mqtt/bridge/devices", good), now: TestHome.start)
        let kept = try #require(core.storedInventory("zigbee2mqtt"))
        for bad in [Array(good.prefix(good.count / 2)), Array(good.dropLast(2)), Array(#"{"devices":[]}"#.utf8)] {
            let output = core.handle(sources.read("zigbee2mqtt/bridge/devices", bad), now: TestHome.start + 1)
            #expect(output.store.inventories.isEmpty)
            #expect(core.storedInventory("zigbee2mqtt") == kept)
        }
    }

    @Test(
        "at start the stored house is placed before the broker speaks: the same accessories, rooms and values, unreachable as not heard from since start"
    )
    func placedAtStart() async throws {
        let live = try TestHome()
        let stored = try await Self.storedHome()
        var (core, _) = Self.started(stored)
        let output = core.handle([DeviceInput](), now: TestHome.start)
        #expect(Set(core.accessories.map(\.id)).isSuperset(of: live.core.accessories.map(\.id)))
        #expect(core.accessory("bulb")?.room == "attic")
        #expect(core.accessory("bulb")?["lightbulb"]?["brightness"]?.value == .int(100), "values from the store, as today")
        for accessory in core.accessories where accessory.bridge != nil {
            #expect(!accessory.reachable && accessory.unreachableReason == "not heard from since start", "\(accessory.id)")
        }
        #expect(!core.inventoriesHeard)
        #expect(output.store.inventories.isEmpty, "nothing new to store")
        let state = try JSONValue(parsing: try #require(core.accessory("bulb")).statePayload)
        #expect(state["unreachable_reason"] == "not heard from since start")
        #expect(try #require(core.accessory("bulb")).treeJSON["unreachable_reason"] == "not heard from since start")
    }

    @Test("the live lists as stored change nothing but reachability: no tree, no accessory added or removed, nothing stored")
    func sameListsLive() async throws {
        let stored = try await Self.storedHome()
        var (core, sources) = Self.started(stored)
        _ = core.handle([DeviceInput](), now: TestHome.start)
        var effects: [CoreEffect] = []
        var store = StoreBatch()
        for (topic, payload) in [
            ("zigbee2mqtt/bridge/devices", try TestHome.demoDeviceBytes()),
            ("zigbee2mqtt/bridge/groups", JSONValue.array(try Self.groups()).serializedBytes()),
        ] {
            let output = core.handle(sources.read(topic, payload), now: TestHome.start + 1)
            effects += output.now + output.afterCommit
            store.merge(output.store)
        }
        #expect(!effects.contains { if case .treeChanged = $0 { true } else { false } }, "\(effects)")
        let structural = effects.filter {
            if case .event(.accessory(_, let change, _)) = $0 { change != .reachability } else { false }
        }
        #expect(structural.isEmpty, "\(structural)")
        #expect(store.inventories.isEmpty && !store.hasStructure)
        #expect(Self.unreachable(core).isEmpty, "\(Self.unreachable(core))")
        #expect(core.inventoriesHeard)
    }

    @Test("a device's own report makes its accessory reachable while the others still wait for their bridge")
    func reportIsHeard() async throws {
        var (core, sources) = Self.started(try await Self.storedHome())
        let output = core.handle(sources.read("zigbee2mqtt/bulb", Self.bytes(["state": "OFF"])), now: TestHome.start)
        #expect(core.accessory("bulb")?.reachable == true)
        #expect(core.accessory("power_plug")?.reachable == false)
        let events = output.now.compactMap {
            if case .event(.accessory(let id, .reachability, let state)) = $0 { (id, state?.reachable) } else { nil }
        }
        #expect(events.map(\.0) == ["bulb"] && events.first?.1 == true)
        // The bridge online: all of its accessories are heard from.
        _ = core.handle(sources.read("zigbee2mqtt/bridge/state", Self.bytes(["state": "online"])), now: TestHome.start)
        #expect(Self.unreachable(core).isEmpty, "\(Self.unreachable(core))")
    }

    @Test("an offline bridge's list without a device keeps its accessory, unreachable; an online bridge's list removes it")
    func onlyOnlineListsRemove() throws {
        var home = try TestHome()
        var devices = try TestHome.demoDevices()
        devices.removeAll { $0["friendly_name"] == "curtain" }
        home.device("zigbee2mqtt/bridge/state", ["state": "offline"])
        _ = home.core.drainNotices()
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        #expect(home.core.accessory("curtain") != nil, "kept")
        #expect(home.core.accessory("curtain")?.unreachableReason == "its Zigbee2MQTT bridge is offline")
        #expect(!home.events.contains { if case .accessory(_, .removed, _) = $0 { true } else { false } })
        #expect(home.core.drainNotices().contains { $0.message.contains("leaves out curtain; kept, unreachable") })

        home.device("zigbee2mqtt/bridge/state", ["state": "online"])
        #expect(home.core.accessory("curtain")?.reachable == true, "online again, as its device is")
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        #expect(home.core.accessory("curtain") == nil)
        #expect(home.events.contains { if case .accessory("curtain", .removed, _) = $0 { true } else { false } })
        #expect(home.core.drainNotices().contains { $0.level == .warning && $0.message.contains("Apple Home forgets it") })
        let kept = try #require(home.stored.inventories["zigbee2mqtt"])
        #expect(!(kept.devices.arrayValue ?? []).contains { $0["friendly_name"] == "curtain" }, "the list stored is the list without it")
    }

    @Test("a stored house whose bridge comes back online without a device: that accessory is removed, the others heard from")
    func removedWhileAway() async throws {
        var (core, sources) = Self.started(try await Self.storedHome())
        var devices = try TestHome.demoDevices()
        devices.removeAll { $0["friendly_name"] == "curtain" }
        _ = core.handle(sources.read("zigbee2mqtt/bridge/state", Self.bytes(["state": "online"])), now: TestHome.start)
        let output = core.handle(
            sources.read("zigbee2mqtt/bridge/devices", JSONValue.array(devices).serializedBytes()), now: TestHome.start)
        #expect(core.accessory("curtain") == nil)
        #expect(Self.unreachable(core).isEmpty, "\(Self.unreachable(core))")
        #expect(output.store.inventories.contains("zigbee2mqtt"))
    }

    @Test("the whole home that brings the store back in line after a failed write carries the bridge's lists")
    func resyncCarriesLists() throws {
        let home = try TestHome()
        let batch = home.core.snapshot()
        let inventory = try #require(batch.inventories["zigbee2mqtt"])
        #expect(Zigbee2MQTTInventory.lists(inventory)?.devices.count == (try TestHome.demoDevices()).count)
    }
}
