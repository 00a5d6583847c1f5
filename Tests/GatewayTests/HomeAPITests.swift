import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "The home over MQTT: homes, rooms, zones and accessories, with events, refusals and a restart",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct HomeAPITests {
    @Test("rooms and zones: added, renamed, removed; every change an event; the accessories' rooms follow")
    func roomsAndZones() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let homes = try await house.ok("home/list")
        #expect(homes["primary"] == "home" && homes["homes"]?[0]?["default_room"] == "default_room")
        let rooms = homes["homes"]?[0]?["rooms"]?.arrayValue ?? []
        #expect(
            rooms.contains { $0["name"] == "Office" && $0["accessories"] == ["bulb"] }, "the mapping's room was created with its accessory")

        var mark = r.mark
        let attic = try await house.ok("room/add", ["name": "  Attic "])
        #expect(attic == ["id": "attic", "name": "Attic", "home": "home", "accessories": []])
        let added = try await r.wait(for: "homegate/event/room/attic", after: mark)
        #expect(added["change"] == "added" && added["name"] == "Attic" && added["home"] == "home")
        #expect(
            try await house.refused("room/add", ["name": "ATTIC"])
                == "there is already a room named 'Attic' in Home (names are unique, ignoring case)")
        #expect(
            try await house.refused("room/add", ["name": "Tab\tRoom"]) == "room name 'Tab\tRoom': a name cannot contain control characters")
        #expect(try await house.refused("room/add", ["nmae": "x"]).hasPrefix("unknown field \"nmae\" (did you mean 'name'?)"))

        let zone = try await house.ok("zone/add", ["name": "Upstairs", "rooms": ["attic", "Office"]])
        #expect(zone["rooms"] == ["attic", "office"])
        try await house.ok("room/rename", ["room": "attic", "name": "Loft"])
        #expect(try await r.wait(for: "homegate/event/room/attic", after: mark) { $0["change"] == "renamed" }["name"] == "Loft")

        mark = r.mark
        try await house.ok("accessory/assign_room", ["accessory": "bulb", "room": "Loft"])
        let moved = try await r.wait(for: "homegate/event/accessory/bulb", after: mark) { $0["change"] == "room" }
        #expect(moved["room"] == "attic" && moved["name"] == "Desk Lamp")
        try await r.wait(for: "homegate/accessories", after: mark) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "bulb" && $0["room"] == "attic" } == true
        }

        // Removing the room: the bulb goes to the default room, the zone loses the room.
        mark = r.mark
        try await house.ok("room/remove", ["room": "loft"])
        #expect(try await r.wait(for: "homegate/event/accessory/bulb", after: mark) { $0["change"] == "room" }["room"] == "default_room")
        #expect(try await r.wait(for: "homegate/event/zone/upstairs", after: mark)["rooms"] == ["office"])
        try await r.wait(for: "homegate/event/room/attic", after: mark) { $0["change"] == "removed" }
        #expect(
            try await house.refused("room/remove", ["room": "default_room"])
                == "'Default Room' is the room for the entire home and cannot be removed")
        #expect(
            try await house.refused("zone/remove_room", ["zone": "upstairs", "room": "kitchen"])
                == "room 'Kitchen' is not in zone 'Upstairs'")
        try await house.ok("zone/remove", ["zone": "Upstairs"])
        #expect(try await house.ok("zone/list")["zones"] == [])
    }

    @Test("accessories: renamed (unique in their home), back to the mapping's name; several homes with one primary")
    func accessoriesAndHomes() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        #expect(
            try await house.refused("accessory/rename", ["accessory": "bulb", "name": "coffee machine"])
                == "there is already an accessory named 'Coffee Machine' in Home (power_plug) (names are unique, ignoring case)")
        var mark = r.mark
        try await house.ok("accessory/rename", ["accessory": "bulb", "name": "Reading Lamp"])
        #expect(try await r.wait(for: "homegate/event/accessory/bulb", after: mark) { $0["change"] == "renamed" }["name"] == "Reading Lamp")
        try await r.wait(for: "homegate/accessories", after: mark) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "bulb" && $0["name"] == "Reading Lamp" } == true
        }
        mark = r.mark
        try await house.ok("accessory/rename", ["accessory": "bulb", "name": nil])
        #expect(try await r.wait(for: "homegate/event/accessory/bulb", after: mark) { $0["change"] == "renamed" }["name"] == "Desk Lamp")
        #expect(
            try await house.refused("accessory/rename", ["accessory": "blub", "name": "x"]) == "no accessory 'blub' (did you mean 'bulb'?)")

        let cabin = try await house.ok("home/add", ["name": "Cabin"])
        #expect(cabin["primary"] == false && cabin["rooms"]?[0]?["id"] == "default_room_2")
        try await house.ok("room/add", ["home": "Cabin", "name": "Porch"])
        try await house.ok("accessory/assign_room", ["accessory": "curtain", "room": "porch"])
        #expect(
            try await house.ok("room/list", ["home": "cabin"])["rooms"]?.arrayValue?.first { $0["id"] == "porch" }?["accessories"] == [
                "curtain"
            ])
        #expect(
            try await house.refused("home/remove", ["home": "home"])
                == "'Home' is the primary home and cannot be removed; make another home primary first")
        try await house.ok("home/set_primary", ["home": "cabin"])
        #expect(try await house.ok("home/list")["primary"] == "cabin")
        mark = r.mark
        try await house.ok("home/set_primary", ["home": "home"])
        try await house.ok("home/remove", ["home": "Cabin"])
        try await r.wait(for: "homegate/event/home/cabin", after: mark) { $0["change"] == "removed" }
        #expect(try await r.wait(for: "homegate/event/accessory/curtain", after: mark) { $0["change"] == "room" }["room"] == "default_room")
    }

    @Test("everything the home API changed is there after a restart, and the accessories' values too")
    func restart() async throws {
        let house = try await House()
        defer { house.stop() }
        try await house.ok("room/add", ["name": "Attic"])
        try await house.ok("zone/add", ["name": "Upstairs", "rooms": ["attic"]])
        try await house.ok("accessory/assign_room", ["accessory": "weather_sensor", "room": "attic"])
        try await house.ok("accessory/rename", ["accessory": "weather_sensor", "name": "Attic Climate"])
        try await house.ok("action_set/add", ["name": "Lamp On", "actions": [["characteristic": "bulb/lightbulb/on", "value": true]]])
        try await house.ok(
            "trigger/add",
            [
                "name": "Smoke", "action_sets": ["lamp_on"],
                "events": [["characteristic": "hallway_smoke_detector/smoke_sensor/smoke_detected", "value": 1]],
            ])
        try await house.report("weather_sensor", ["temperature": 17.3])
        try await house.recorder.wait(for: "homegate/state/weather_sensor") {
            $0["services"]?["temperature_sensor"]?["current_temperature"] == 17.3
        }
        let before = try await house.ok("home/list")

        kill(house.gateway, SIGTERM)
        waitpid(house.gateway, nil, 0)
        // The simulator stops too, so the restored temperature can only come from the database.
        kill(house.simulator, SIGTERM)
        waitpid(house.simulator, nil, 0)
        let mark = house.recorder.mark
        try house.startGateway()
        try await house.recorder.wait(for: "homegate/accessories", after: mark) { ($0["accessories"]?.arrayValue?.count ?? 0) > 10 }
        #expect(try await house.ok("home/list") == before)
        #expect(try await house.ok("action_set/list")["action_sets"]?[0]?["name"] == "Lamp On")
        #expect(
            try await house.ok("trigger/list")["triggers"]?[0]?["events"]?[0]?["characteristic"]
                == "hallway_smoke_detector/smoke_sensor/smoke_detected")
        let state = try await house.recorder.wait(for: "homegate/state/weather_sensor", after: mark)
        #expect(state["services"]?["temperature_sensor"]?["current_temperature"] == 17.3, "the last value came back from the database")
        let tree = try await house.recorder.wait(for: "homegate/accessories", after: mark)
        #expect(tree["accessories"]?.arrayValue?.first { $0["id"] == "weather_sensor" }?["name"] == "Attic Climate")
    }
}
