import Automation
import Foundation
import GRDB
import GatewayCore
import HomeModel
import JSON
import Persistence
import Testing

/// A database file of the test's own.
func temporaryDatabase() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("homegate-store-\(UUID().uuidString)/home.sqlite").path
}

/// A home with something of everything in it.
func sampleHome() throws -> StoredHome {
    var structure = HomeStructure.initial()
    let cabin = try structure.addHome(named: "Cabin")
    let hall = try structure.addRoom(named: "Hall", in: "home")
    _ = try structure.addZone(named: "Downstairs", in: "home", rooms: [hall.id, "default_room"])
    structure.place(accessory: "hall_light", requestedRoom: "Hall")
    structure.place(accessory: "motion", requestedRoom: nil)
    try structure.assign(accessory: "porch_light", toRoom: cabin.defaultRoom)
    structure.rename(accessory: "porch_light", to: "Porch Light")
    _ = structure.drainChanges()
    let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    let sets = [
        ActionSet(
            id: "evening", name: "Evening", home: "home",
            actions: [
                Action(CharacteristicPath("hall_light/lightbulb/brightness")!, .int(80)),
                Action(CharacteristicPath("hall_light/lightbulb/on")!, .bool(true)),
            ], lastExecuted: t0)
    ]
    let zone = TimeZone(identifier: "Europe/Amsterdam")!
    let idle = Trigger(
        id: "idle", name: "No motion", home: "home", actionSets: ["evening"],
        kind: try Trigger.kind(
            from: ["events": [["characteristic": "motion/motion_sensor/motion_detected", "value": false, "for": "10m"]]],
            defaultTimeZone: zone),
        conditions: try Trigger.conditions(from: [
            "any": [["time": ["after": "sunset-30m"]], ["characteristic": "hall_light/lightbulb/on", "op": "=", "value": true]]
        ]))
    let night = Trigger(
        id: "night", name: "Night", home: "home", enabled: false, actionSets: ["evening"],
        kind: try Trigger.kind(from: ["timer": ["recurrence": ["at": "22:30", "weekdays": "weekdays"]]], defaultTimeZone: zone),
        executeOnce: true)
    return StoredHome(
        structure: structure, actionSets: sets, triggers: [idle, night],
        runtimes: [
            "idle": TriggerRuntime(lastFired: t0, since: t0, held: [0: t0.addingTimeInterval(600)]), "night": TriggerRuntime(since: t0),
        ],
        values: [
            CharacteristicPath("hall_light/lightbulb/brightness")!: .int(42),
            CharacteristicPath("motion/motion_sensor/motion_detected")!: .bool(false),
            CharacteristicPath("weather/temperature_sensor/current_temperature")!: .float(21.5),
        ])
}

@Suite("The SQLite store: what is written comes back, in one transaction per batch")
struct StoreTests {
    @Test("a new database has the schema and no home; everything written comes back equal")
    func roundTrip() throws {
        let path = temporaryDatabase()
        let store = try SQLiteHomeStore(path: path)
        #expect(try store.load() == nil && store.isEmpty())
        let home = try sampleHome()
        try store.replaceAll(with: home)
        let loaded = try #require(try store.load())
        #expect(loaded.structure == home.structure)
        #expect(loaded.actionSets == home.actionSets)
        #expect(loaded.triggers == home.triggers)
        #expect(loaded.runtimes == home.runtimes)
        #expect(loaded.values == home.values)
        #expect(loaded.skipped.isEmpty)
        #expect(try store.integrityCheck() == "ok")
        let mode = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal", "readers such as homegate export never wait for the gateway")
    }

    @Test("batches: renames, removals (which take their children along) and values, as the gateway sends them")
    func batches() async throws {
        let store = try SQLiteHomeStore(path: temporaryDatabase())
        let home = try sampleHome()
        try store.replaceAll(with: home)
        var structure = home.structure
        try structure.renameRoom("hall", to: "Entrance")
        try structure.removeRoom("hall")
        try structure.removeHome("cabin")
        var batch = StoreBatch()
        for change in structure.drainChanges() {
            switch change.kind {
            case .home: batch.homes[change.id] = structure.home(id: change.id)
            case .room: batch.rooms[change.id] = structure.room(id: change.id)
            case .zone: batch.zones[change.id] = structure.zone(id: change.id)
            case .accessory: batch.placements[change.id] = structure.placements[change.id]
            }
        }
        batch.triggers["idle"] = nil
        batch.runtimes["idle"] = nil
        batch.values[CharacteristicPath("hall_light/lightbulb/brightness")!] = .int(43)
        try await store.write(batch)
        let loaded = try #require(try store.load())
        #expect(
            loaded.structure
                == HomeStructure(
                    homes: structure.homes, primaryHome: structure.primaryHome, rooms: structure.rooms,
                    zones: structure.zones, placements: structure.placements))
        #expect(loaded.structure.placements["hall_light"]?.room == "default_room")
        #expect(
            loaded.structure.placements["porch_light"]?.room == "default_room", "the removed home's accessory moved to the primary home")
        #expect(loaded.triggers.map(\.id) == ["night"] && loaded.runtimes["idle"] == nil)
        #expect(loaded.values[CharacteristicPath("hall_light/lightbulb/brightness")!] == .int(43))
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("a thing removed and added again under the same id in one batch is written whole, in its new home")
    func reusedIDs() async throws {
        let store = try SQLiteHomeStore(path: temporaryDatabase())
        var home = try sampleHome()
        home.actionSets.append(ActionSet(id: "night", name: "Night", home: "cabin"))
        try store.replaceAll(with: home)
        var batch = StoreBatch()
        batch.actionSets["night"] = nil
        batch.actionSets["night"] = ActionSet(id: "night", name: "Night", home: "home")
        batch.zones["downstairs"] = Zone(
            id: "downstairs", name: "Downstairs", home: "cabin", rooms: [home.structure.home(id: "cabin")!.defaultRoom])
        try await store.write(batch)
        let loaded = try #require(try store.load())
        #expect(loaded.actionSets.first { $0.id == "night" }?.home == "home")
        #expect(loaded.structure.zone(id: "downstairs")?.home == "cabin")
        // Removing the old home no longer takes them along.
        var removal = StoreBatch()
        removal.homes["cabin"] = nil
        removal.zones["downstairs"] = nil
        try await store.write(removal)
        #expect(try #require(try store.load()).actionSets.contains { $0.id == "night" })
    }

    @Test("batches merge: the later state of a thing wins, and the order things first changed is kept")
    func merging() {
        var first = StoreBatch()
        first.rooms["b"] = Room(id: "b", name: "B", home: "home")
        first.rooms["a"] = Room(id: "a", name: "A", home: "home")
        var second = StoreBatch()
        second.rooms["b"] = nil
        second.rooms["c"] = Room(id: "c", name: "C", home: "home")
        first.merge(second)
        #expect(first.rooms.map(\.0) == ["b", "a", "c"])
        #expect(first.rooms["b"] == nil && first.rooms.contains("b"), "b is recorded as gone")
        #expect(first.hasStructure)
    }

    @Test("last-fired and last-run times written on their own; a whole row written later wins over an earlier time")
    func lazyTimes() async throws {
        let store = try SQLiteHomeStore(path: temporaryDatabase())
        try store.replaceAll(with: try sampleHome())
        let t1 = Date(timeIntervalSince1970: 1_795_100_000)
        let t2 = t1.addingTimeInterval(60)
        var times = StoreBatch()
        times.lastFired["night"] = t1
        times.lastExecuted["evening"] = t1
        #expect(!times.hasStructure, "these may wait for company")
        try await store.write(times)
        var loaded = try #require(try store.load())
        #expect(loaded.runtimes["night"]?.lastFired == t1 && loaded.actionSets[0].lastExecuted == t1)

        var merged = StoreBatch()
        merged.lastFired["night"] = t1
        var later = StoreBatch()
        later.runtimes["night"] = TriggerRuntime(lastFired: t2, since: t2)
        merged.merge(later)
        try await store.write(merged)
        loaded = try #require(try store.load())
        #expect(loaded.runtimes["night"]?.lastFired == t2)
    }

    @Test("a second homegate on the same database is refused, naming the holder; a reader is not")
    func exclusive() throws {
        let path = temporaryDatabase()
        let store = try SQLiteHomeStore(path: path)
        #expect { try SQLiteHomeStore(path: path) } throws: { "\($0)".contains("is in use by another homegate (pid \(getpid()))") }
        _ = try SQLiteHomeStore(path: path, access: .reader)
        withExtendedLifetime(store) {}
    }

    @Test("the lock holds however the file is named: through a symlink to it, a symlinked folder, or `..`")
    func exclusiveThroughOtherPaths() throws {
        let path = temporaryDatabase()
        let store = try SQLiteHomeStore(path: path)
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let linkToFile = folder.appendingPathComponent("link-\(UUID().uuidString).sqlite").path
        try FileManager.default.createSymbolicLink(atPath: linkToFile, withDestinationPath: path)
        let linkToFolder = FileManager.default.temporaryDirectory.appendingPathComponent("folder-link-\(UUID().uuidString)").path
        try FileManager.default.createSymbolicLink(atPath: linkToFolder, withDestinationPath: folder.path)
        for other in [
            linkToFile, "\(linkToFolder)/\(url.lastPathComponent)",
            "\(folder.path)/./../\(folder.lastPathComponent)/\(url.lastPathComponent)",
        ] {
            #expect { try SQLiteHomeStore(path: other) } throws: { "\($0)".contains("is in use by another homegate (pid \(getpid()))") }
        }
        withExtendedLifetime(store) {}
    }

    @Test("a database from a newer homegate is refused rather than misread")
    func newerSchema() throws {
        let path = temporaryDatabase()
        _ = try SQLiteHomeStore(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('99: from the future')") }
        #expect { try SQLiteHomeStore(path: path, access: .reader) } throws: { "\($0)".contains("was written by a newer homegate") }
    }

    @Test("a reader refuses a file that is not a homegate database and leaves it as it was")
    func foreignFile() throws {
        let path = temporaryDatabase()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let other = try DatabaseQueue(path: path)
        try other.write { try $0.execute(sql: "CREATE TABLE notes (text TEXT)") }
        #expect { try SQLiteHomeStore(path: path, access: .reader) } throws: { "\($0)".contains("not a homegate database") }
        #expect(try other.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") } == ["notes"])
    }

    @Test("a trigger whose stored definition cannot be read is skipped with the reason; the rest loads")
    func unreadableRow() throws {
        let path = temporaryDatabase()
        let store = try SQLiteHomeStore(path: path)
        try store.replaceAll(with: try sampleHome())
        let queue = try DatabaseQueue(path: path)
        try queue.write {
            try $0.execute(sql: "UPDATE triggers SET definition = '{\"timer\":{\"recurrence\":{\"at\":\"99:99\"}}}' WHERE id = 'night'")
        }
        let loaded = try #require(try store.load())
        #expect(loaded.triggers.map(\.id) == ["idle"])
        #expect(loaded.skipped == ["trigger night: its definition cannot be read (timer.recurrence.at: not a clock time)"])
    }
}
