import Automation
import Foundation
import GatewayCore
import HomeModel
import JSON
import Mosquitto
import MosquittoTesting
import Persistence
import Testing

@Suite("The home survives: kill -9 while writing, export and import", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct DurabilityTests {
    @Test("kill -9 while rooms are being added: the database is intact and holds every room that was answered")
    func killedWhileWriting() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        let total = 400
        let sender = Task {
            for i in 0..<total {
                try? await r.publish("homegate/request/room/add", #"{"name":"Room \#(i)","transaction":\#(i)}"#)
            }
        }
        // Kill it in the middle of the stream, once some answers have come.
        while r.since(mark).filter({ $0.topic == "homegate/response/room/add" }).count < 60 { try await Task.sleep(for: .milliseconds(5)) }
        kill(house.gateway, SIGKILL)
        waitpid(house.gateway, nil, 0)
        sender.cancel()
        let answered = r.since(mark).filter { $0.topic == "homegate/response/room/add" }.compactMap { try? JSONValue(parsing: $0.payload) }
            .filter { $0["status"] == "ok" }.compactMap { $0["data"]?["name"]?.stringValue }
        #expect(answered.count >= 60 && answered.count < total, "killed part way: \(answered.count) answered")

        // The lock went with the process; the file is whole and holds every answered room.
        let store = try SQLiteHomeStore(path: house.broker.database)
        #expect(try store.integrityCheck() == "ok")
        let stored = Set(try #require(try store.load()).structure.rooms.map(\.name))
        #expect(Set(answered).isSubset(of: stored), "missing: \(Set(answered).subtracting(stored).sorted())")
        withExtendedLifetime(store) {}
    }

    @Test("the lock is released by a killed gateway, and the restarted one has the answered rooms")
    func restartAfterKill() async throws {
        let house = try await House()
        defer { house.stop() }
        for i in 0..<20 { try await house.ok("room/add", ["name": .string("Room \(i)")]) }
        kill(house.gateway, SIGKILL)
        waitpid(house.gateway, nil, 0)
        let mark = house.recorder.mark
        try house.startGateway()
        try await house.recorder.wait(for: "homegate/bridge/state", after: mark) { $0["state"] == "online" }
        let rooms = try await house.ok("room/list")["rooms"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect((0..<20).allSatisfy { rooms.contains("Room \($0)") })
    }

    @Test("export while running, import onto an empty database: the same home; a broken file imports nothing")
    func exportAndImport() async throws {
        let house = try await House()
        defer { house.stop() }
        try await house.ok("room/add", ["name": "Attic"])
        try await house.ok("zone/add", ["name": "Upstairs", "rooms": ["attic", "office"]])
        try await house.ok("accessory/rename", ["accessory": "weather_sensor", "name": "Attic Climate"])
        try await house.ok(
            "action_set/add", ["name": "Evening", "actions": [["characteristic": "bulb/lightbulb/brightness", "value": 40]]])
        try await house.ok(
            "trigger/add",
            [
                "name": "Dusk", "action_sets": ["evening"],
                "events": [["characteristic": "occupancy_sensor/light_sensor/current_ambient_light_level", "range": ["max": 20]]],
                "conditions": ["weekdays": "weekdays"],
            ])
        let directory = house.broker.directory
        let file = directory.appendingPathComponent("home.yaml").path
        let export = try await homegate(["export", "--database", house.broker.database, "--output", file])
        #expect(export.status == 0, "\(export.output)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("name: Attic Climate") && text.contains("- {id: upstairs, name: Upstairs, rooms: [attic, office]}"))

        let copy = directory.appendingPathComponent("restored/home.sqlite").path
        let restored = try await homegate(["import", file, "--database", copy])
        #expect(restored.status == 0 && restored.output.contains("imported 1 home(s)"), "\(restored.output)")
        let again = try await homegate(["import", file, "--database", copy])
        #expect(again.status == 1 && again.output.contains("already holds a home; import needs an empty database (or --replace)"))
        #expect(try await homegate(["import", file, "--database", copy, "--replace"]).status == 0)
        #expect(try await homegate(["import", file, "--database", house.broker.database]).output.contains("is in use by another homegate"))

        let original = try #require(try SQLiteHomeStore(path: house.broker.database, access: .reader).load())
        let copied = try #require(try SQLiteHomeStore(path: copy, access: .reader).load())
        #expect(copied.structure == original.structure && copied.actionSets.map(\.actions) == original.actionSets.map(\.actions))
        #expect(copied.triggers == original.triggers)

        let broken = directory.appendingPathComponent("broken.yaml").path
        try text.replacingOccurrences(of: "range: {max: 20.0}", with: "range: {max: low}").write(
            toFile: broken, atomically: true, encoding: .utf8)
        let refused = try await homegate(["import", broken, "--database", directory.appendingPathComponent("other/home.sqlite").path])
        #expect(
            refused.status == 1 && refused.output.contains("broken.yaml:")
                && refused.output.contains("triggers[0].events[0].range.max: expected a number"),
            "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("other/home.sqlite").path), "nothing written")
    }
}
