import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite("Names stay with their accessories across restarts, and stay unique", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct NameStabilityTests {
    func names(_ house: House) async throws -> [String: String] {
        let list = try await house.ok("accessories")["accessories"]?.arrayValue ?? []
        return Dictionary(
            uniqueKeysWithValues: list.compactMap { a in a["id"]?.stringValue.flatMap { id in a["name"]?.stringValue.map { (id, $0) } } })
    }

    @Test("the issue's steps: a name made unique when a home is removed is still that accessory's after a restart")
    func noSwap() async throws {
        let house = try await House()
        defer { house.stop() }
        try await house.ok("accessory/rename", ["accessory": "bulb", "name": "Hallway Light"])
        try await house.ok("home/add", ["name": "Cabin"])
        try await house.ok("room/add", ["name": "Porch", "home": "Cabin"])
        try await house.ok("accessory/assign_room", ["accessory": "hallway_dimmer", "room": "porch", "home": "cabin"])
        try await house.ok("accessory/rename", ["accessory": "hallway_dimmer", "name": "hallway light"])
        try await house.ok("home/remove", ["home": "Cabin"])
        let before = try await names(house)
        #expect(before["bulb"] == "Hallway Light" && before["hallway_dimmer"] == "hallway light 2", "\(before)")

        house.stopGateway()
        let mark = house.recorder.mark
        try house.startGateway()
        try await house.settled(after: mark)
        let after = try await names(house)
        #expect(after["bulb"] == "Hallway Light" && after["hallway_dimmer"] == "hallway light 2", "\(after)")
    }

    @Test("homegate import refuses two accessory names equal but for case in one home")
    func importRefusesDuplicates() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("home.yaml")
        try """
        homes:
        - id: home
          name: Home
          default_room: default_room
          rooms:
          - {id: default_room, name: Default Room}
        accessories:
          bulb: {room: default_room, name: Hallway Light}
          hallway_dimmer: {room: default_room, name: hallway light}
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try await homegate(["import", file.path, "--database", folder.appendingPathComponent("h.sqlite").path])
        #expect(result.status == 1)
        #expect(
            result.output.contains("accessories.hallway_dimmer.name: 'hallway light' is already the name of accessory bulb in home home"),
            "\(result.output)")
    }
}
