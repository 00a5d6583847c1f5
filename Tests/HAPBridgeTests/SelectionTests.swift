import Foundation
import Gateway
import GatewayCore
import HAP
import HomeModel
import Logging
import Testing

@testable import HAPBridge

@Suite("which accessories Apple Home sees: hap.include and hap.exclude")
struct SelectionTests {
    /// Two homes; the first with a living room (in zone Downstairs), a garage and its default room.
    private func house(sensorName: String = "Hallway sensor") -> HomeSnapshot {
        let structure = HomeStructure(
            homes: [
                Home(id: "home", name: "Home", defaultRoom: "default_room"),
                Home(id: "cabin", name: "Cabin", defaultRoom: "cabin_default"),
            ],
            primaryHome: "home",
            rooms: [
                Room(id: "default_room", name: "Default Room", home: "home"),
                Room(id: "living_room", name: "Living room", home: "home"),
                Room(id: "garage", name: "Garage", home: "home"),
                Room(id: "cabin_default", name: "Default Room", home: "cabin"),
                Room(id: "kitchen", name: "Kitchen", home: "cabin"),
            ],
            zones: [Zone(id: "downstairs", name: "Downstairs", home: "home", rooms: ["living_room"])], placements: [:])
        func accessory(_ id: String, _ name: String, room: String, home: String = "home") -> Accessory {
            var accessory = Accessory(
                id: id, name: name,
                services: [Service(id: "switch", type: .switch, characteristics: [Characteristic(.on, value: .bool(false))])])
            (accessory.home, accessory.room) = (home, room)
            return accessory
        }
        return HomeSnapshot(
            accessories: [
                accessory("lamp", "Lamp", room: "living_room"),
                accessory("door", "Garage door", room: "garage"),
                accessory("0x00158d0001a2b3c4", sensorName, room: "default_room"),
                accessory("kettle", "Kettle", room: "kitchen", home: "cabin"),
            ], lastSeen: [:], structure: structure)
    }

    private func selection(include: [String] = [], exclude: [String] = []) throws -> BridgedSelection {
        func parsed(_ texts: [String]) throws -> [AccessorySelector] { try texts.map { try AccessorySelector.parse($0).get() } }
        return BridgedSelection(include: try parsed(include), exclude: try parsed(exclude))
    }

    @Test("kind:name, the kind in any case, spaces around trimmed; malformed ones say what is wrong")
    func parsing() throws {
        #expect(try AccessorySelector.parse("room:Living room").get() == AccessorySelector(kind: .room, value: "Living room"))
        #expect(
            try AccessorySelector.parse(" Accessory : 0x00158d0001a2b3c4 ").get()
                == AccessorySelector(kind: .accessory, value: "0x00158d0001a2b3c4"))
        #expect(try AccessorySelector.parse("zone:Up:stairs").get().value == "Up:stairs")
        for (text, says) in [("Garage", "expected kind:name"), ("floor:1", "'floor'"), ("room: ", "names no room")] {
            #expect(throws: SelectorProblem.self) { try AccessorySelector.parse(text).get() }
            if case .failure(let problem) = AccessorySelector.parse(text) { #expect(problem.message.contains(says), "\(problem.message)") }
        }
    }

    @Test("nothing set: everything is bridged")
    func everything() {
        #expect(BridgedSelection.everything.bridged(house()) == ["lamp", "door", "0x00158d0001a2b3c4", "kettle"])
    }

    @Test("include by home, room or zone; exclude by room or accessory, by id or by name, ignoring case")
    func includeExclude() throws {
        #expect(try selection(include: ["home:Home"]).bridged(house()) == ["lamp", "door", "0x00158d0001a2b3c4"])
        #expect(try selection(include: ["home:cabin", "room:living ROOM"]).bridged(house()) == ["lamp", "kettle"])
        #expect(try selection(include: ["zone:downstairs"]).bridged(house()) == ["lamp"])
        #expect(try selection(exclude: ["room:garage", "accessory:hallway sensor"]).bridged(house()) == ["lamp", "kettle"])
        #expect(try selection(exclude: ["accessory:0x00158D0001A2B3C4"]).bridged(house()) == ["lamp", "door", "kettle"])
        // Exclude wins over include; a room name in two homes selects both rooms.
        #expect(try selection(include: ["home:Home"], exclude: ["accessory:lamp"]).bridged(house()) == ["door", "0x00158d0001a2b3c4"])
        #expect(try selection(include: ["room:Default Room"]).bridged(house()) == ["0x00158d0001a2b3c4"])
    }

    @Test("by name follows renames: the selection is decided on the house as it is now")
    func renames() throws {
        let selection = try selection(exclude: ["accessory:Hallway sensor"])
        #expect(!selection.bridged(house()).contains("0x00158d0001a2b3c4"))
        #expect(selection.bridged(house(sensorName: "Porch sensor")).contains("0x00158d0001a2b3c4"))
    }

    @Test("selectors that name no home, room, zone or accessory of the house are the ones reported")
    func unmatched() throws {
        let selection = try selection(
            include: ["home:Home", "zone:Upstairs"], exclude: ["room:Attic", "accessory:Kettle", "room:kitchen"])
        #expect(selection.unmatched(house()).map(\.description) == ["zone:Upstairs", "room:Attic"])
    }

    @Test("HOMEGATE_HAP_INCLUDE / _EXCLUDE take comma-separated selectors; a malformed one is an error naming key and value")
    func environment() throws {
        let settings = try GatewayConfiguration.load(
            path: nil,
            environment: ["HOMEGATE_HAP_INCLUDE": "room:Kitchen, home:Home,", "HOMEGATE_HAP_EXCLUDE": "accessory:Hallway sensor"])
        #expect(settings.hap.include == [AccessorySelector(kind: .room, value: "Kitchen"), AccessorySelector(kind: .home, value: "Home")])
        #expect(settings.hap.exclude == [AccessorySelector(kind: .accessory, value: "Hallway sensor")])
        #expect(GatewayConfiguration().hap.include.isEmpty && GatewayConfiguration().hap.exclude.isEmpty)
        #expect { try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_HAP_EXCLUDE": "room:Garage,garage"]) } throws: {
            let text = "\($0)"
            return text.contains("HOMEGATE_HAP_EXCLUDE: hap.exclude:") && text.contains("'garage'")
        }
    }

    @Test("in the file: a list of kind:name, or of one-entry mappings (- room: Garage); errors say where")
    func file() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-selection-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.yaml").path
        try """
        hap:
          include: [home:Home, "room:Living room"]
          exclude:
            - room: Garage
            - accessory:0x00158d0001a2b3c4
        """.write(toFile: good, atomically: true, encoding: .utf8)
        let settings = try GatewayConfiguration.load(path: good, environment: [:])
        #expect(settings.hap.include.map(\.description) == ["home:Home", "room:Living room"])
        #expect(settings.hap.exclude.map(\.description) == ["room:Garage", "accessory:0x00158d0001a2b3c4"])
        let bad = folder.appendingPathComponent("bad.yaml").path
        try "hap:\n  exclude: [room:Garage, shed]\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect { try GatewayConfiguration.load(path: bad, environment: [:]) } throws: {
            "\($0)".contains("bad.yaml:2:") && "\($0)".contains("hap.exclude:") && "\($0)".contains("'shed'")
        }
        // The variable replaces the file's list.
        let both = try GatewayConfiguration.load(path: good, environment: ["HOMEGATE_HAP_EXCLUDE": "room:Attic"])
        #expect(both.hap.exclude.map(\.description) == ["room:Attic"])
    }

    @Test("an accessory that leaves the selection keeps its aid and comes back with it; c# changes both ways")
    func leavesAndReturns() async throws {
        let storage = MemoryStorage()
        let registry = try await IdentifierRegistry(
            storage: IdentifierStorage(storage: storage), logger: Logger(label: "test"),
            selection: try selection(exclude: ["accessory:Porch sensor"]), now: { day(0) })
        let identity = BridgeIdentity(name: "homegate", serialNumber: "0E:12:34:56:78:9A", firmware: "0.1.0")
        let before = await registry.layout(bridge: 0, house(), identity: identity)
        #expect(before.accessories.map(\.aid) == [1, 2, 3, 4, 5])
        let renamed = await registry.layout(bridge: 0, house(sensorName: "Porch sensor"), identity: identity)
        #expect(renamed.accessories.map(\.aid) == [1, 2, 3, 5])
        #expect(renamed.fingerprint != before.fingerprint)
        let back = await registry.layout(bridge: 0, house(), identity: identity)
        #expect(back.accessories.map(\.aid) == [1, 2, 3, 4, 5] && back.fingerprint == before.fingerprint)
        // And it was kept in the database all along.
        #expect(try await IdentifierStorage(storage: storage).load().accessories["0x00158d0001a2b3c4"]?.aid == 4)
    }

    @Test("the accessories that left the bridge since a moment are told with their aids, for the log that says HomeKit forgets them")
    func departedSince() async throws {
        let registry = try await IdentifierRegistry(
            storage: IdentifierStorage(storage: MemoryStorage()), logger: Logger(label: "test"),
            selection: try selection(exclude: ["accessory:Porch sensor"]), now: { day(0) })
        let identity = BridgeIdentity(name: "homegate", serialNumber: "0E:12:34:56:78:9A", firmware: "0.1.0")
        _ = await registry.layout(bridge: 0, house(), identity: identity)
        #expect(await registry.departed(bridge: 0, since: day(0)).isEmpty)
        _ = await registry.layout(bridge: 0, house(sensorName: "Porch sensor"), identity: identity)
        let gone = await registry.departed(bridge: 0, since: day(0))
        #expect(gone.map(\.accessory) == ["0x00158d0001a2b3c4"] && gone.map(\.aid) == [4])
        #expect(await registry.departed(bridge: 0, since: day(1)).isEmpty, "left before the moment asked about")
    }
}
