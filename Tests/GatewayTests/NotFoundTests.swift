import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "Not-found answers point the right way; names work where they name one thing", .enabled(if: TestBroker.isAvailable),
    .timeLimit(.minutes(2)))
struct NotFoundTests {
    @Test("a renamed home's old name, a room in another home, and an accessory by its name")
    func pointers() async throws {
        let house = try await House()
        defer { house.stop() }
        try await house.ok("home/add", ["name": "Cabin"])
        try await house.ok("home/rename", ["home": "cabin", "name": "Lodge"])
        let renamed = try await house.refused("room/add", ["name": "Loft", "home": "Cabin"])
        #expect(renamed == "no home 'Cabin'; 'cabin' is the id of the home now called 'Lodge'", "\(renamed)")

        try await house.ok("room/add", ["name": "Porch", "home": "cabin"])
        let elsewhere = try await house.refused("accessory/assign_room", ["accessory": "bulb", "room": "Porch"])
        #expect(
            elsewhere == #"no room 'Porch' in Home; a room 'Porch' is in home 'Lodge': add "home": "cabin", or use its id 'porch'"#,
            "\(elsewhere)")

        let byName = try await house.ok("accessory/rename", ["accessory": "Desk Lamp", "name": "Reading Lamp"])
        #expect(byName["id"] == "bulb" && byName["name"] == "Reading Lamp", "\(byName)")
    }
}
