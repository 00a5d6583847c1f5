import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "Action sets and triggers over MQTT: checked when added, checked again when run",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct ActionSetAndTriggerAPITests {
    @Test("an action set is refused with the reason for each kind of bad action; nothing is stored")
    func refusedActionSets() async throws {
        let house = try await House()
        defer { house.stop() }
        func refusal(_ actions: JSONValue) async throws -> String {
            try await house.refused("action_set/add", ["name": "Bad", "actions": actions])
        }
        #expect(
            try await refusal([["characteristic": "bulb/lightbulb/brightness", "value": 500]])
                == "actions[0].value: bulb/lightbulb/brightness: 500 is above the maximum 100")
        #expect(
            try await refusal([["characteristic": "weather_sensor/temperature_sensor/current_temperature", "value": 20]])
                == "actions[0]: weather_sensor/temperature_sensor/current_temperature: is read-only")
        #expect(try await refusal([["characteristic": "nobody/lightbulb/on", "value": true]]) == "actions[0]: nobody: no such accessory")
        #expect(
            try await refusal([
                ["characteristic": "bulb/lightbulb/on", "value": true], ["characteristic": "bulb/lightbulb/on", "value": false],
            ])
                == "Bad already has an action for bulb/lightbulb/on; remove it first")
        #expect(
            try await refusal([["characteristic": "bulb/lightbulb/brightnes", "value": 1]])
                == "actions[0].characteristic: 'brightnes' is not a HAP characteristic (did you mean 'brightness'?)")
        #expect(
            try await refusal([["characteristic": "bulb/lightbulb/on", "value": [1]]])
                == "actions[0].value: expected a value (true, 80, 21.5 or \"text\"), got an array")
        #expect(try await house.ok("action_set/list")["action_sets"] == [])
    }

    @Test("executing: every write checked again, one /set per device, a result per action; an accessory that left is reported, not fatal")
    func execute() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        try await house.ok(
            "action_set/add",
            [
                "name": "Movie Night",
                "actions": [
                    ["characteristic": "bulb/lightbulb/on", "value": true], ["characteristic": "bulb/lightbulb/brightness", "value": 20],
                    ["characteristic": "curtain/window_covering/target_position", "value": 0],
                ],
            ])
        var mark = r.mark
        let run = try await house.ok("action_set/execute", ["action_set": "Movie Night"])
        #expect(run["results"]?.arrayValue?.map { $0["status"] } == ["ok", "ok", "ok"])
        #expect(try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark) == ["state": "ON", "brightness": 51])
        try await r.wait(for: "zigbee2mqtt/curtain/set", after: mark)
        let executed = try await r.wait(for: "homegate/event/action_set/movie_night", after: mark) { $0["change"] == "executed" }
        #expect(executed["source"] == "api")
        #expect(
            try await r.wait(for: "homegate/event/bulb/lightbulb/brightness", after: mark) { $0["value"] == 20 }["source"]
                == "action_set:movie_night")
        try await house.barrier()
        #expect(r.since(mark).filter { $0.topic == "zigbee2mqtt/bulb/set" }.count == 1)
        #expect(try await house.ok("action_set/list")["action_sets"]?[0]?["last_executed"]?.stringValue != nil)

        // The curtain leaves the network: its action fails with the reason, the rest still runs.
        mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/device/remove", #"{"id":"curtain"}"#)
        try await r.wait(for: "homegate/event/accessory/curtain", after: mark) { $0["change"] == "removed" }
        mark = r.mark
        let partial = try await house.request("action_set/execute", ["action_set": "movie_night"])
        #expect(partial["status"] == "error" && partial["error"] == "1 of 3 actions failed")
        #expect(
            partial["data"]?["results"]?[2] == [
                "characteristic": "curtain/window_covering/target_position", "status": "error", "error": "curtain: no such accessory",
            ])
        try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark)

        // It joins again: announced as added, back in its room, and the scene reaches it.
        mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/add", #"{"model":"ZNCLDJ11LM","friendly_name":"curtain"}"#)
        #expect(
            try await r.wait(for: "homegate/event/accessory/curtain", after: mark) { $0["change"] == "added" }["room"] == "default_room")
        #expect(
            try await house.ok("action_set/execute", ["action_set": "movie_night"])["results"]?.arrayValue?.allSatisfy {
                $0["status"] == "ok"
            } == true)

        // Moved to another home, the bulb is no longer written by this home's scene.
        try await house.ok("home/add", ["name": "Cabin"])
        try await house.ok("accessory/assign_room", ["accessory": "bulb", "room": "default_room_2"])
        let elsewhere = try await house.request("action_set/execute", ["action_set": "movie_night"])
        #expect(elsewhere["data"]?["results"]?[0]?["error"] == "bulb: is now in home 'Cabin', not in this action set's")
    }

    @Test("updating and removing: actions added and removed, a renamed set; a removed set leaves its triggers")
    func updateAndRemove() async throws {
        let house = try await House()
        defer { house.stop() }
        try await house.ok("action_set/add", ["name": "Lamp", "actions": [["characteristic": "bulb/lightbulb/on", "value": true]]])
        let updated = try await house.ok(
            "action_set/update",
            [
                "action_set": "lamp", "name": "Lamp Half",
                "add_actions": [["characteristic": "bulb/lightbulb/brightness", "value": 50]],
                "remove_actions": ["bulb/lightbulb/on"],
            ])
        #expect(updated["name"] == "Lamp Half" && updated["actions"] == [["characteristic": "bulb/lightbulb/brightness", "value": 50]])
        #expect(
            try await house.refused("action_set/update", ["action_set": "lamp", "remove_actions": ["bulb/lightbulb/on"]])
                == "Lamp Half has no action for bulb/lightbulb/on")
        try await house.ok(
            "trigger/add",
            [
                "name": "Press", "action_sets": ["lamp"],
                "events": [["characteristic": "button/stateless_programmable_switch/programmable_switch_event", "value": 0]],
            ])
        try await house.ok("action_set/remove", ["action_set": "Lamp Half"])
        #expect(try await house.ok("trigger/list")["triggers"]?[0]?["action_sets"] == [], "the trigger stays, without the set")
        #expect(try await house.refused("action_set/execute", ["action_set": "lamp"]) == "no action set 'lamp'")
    }

    @Test("lists page with offset and limit and say how many there are in all")
    func paging() async throws {
        let house = try await House()
        defer { house.stop() }
        for name in ["One", "Two", "Three"] {
            try await house.ok(
                "action_set/add", ["name": .string(name), "actions": [["characteristic": "bulb/lightbulb/on", "value": true]]])
            try await house.ok(
                "trigger/add", ["name": .string(name), "action_sets": [.string(name)], "timer": ["recurrence": ["at": "07:00"]]])
        }
        let sets = try await house.ok("action_set/list", ["offset": 1, "limit": 1])
        #expect(sets["total"] == 3 && sets["action_sets"]?.arrayValue?.map { $0["id"] } == ["two"])
        let triggers = try await house.ok("trigger/list", ["offset": 2, "limit": 5])
        #expect(triggers["total"] == 3 && triggers["triggers"]?.arrayValue?.map { $0["id"] } == ["three"])
        #expect(triggers["triggers"]?[0]?["next_fire"]?.stringValue != nil)
        #expect(try await house.refused("trigger/list", ["limit": -1]) == "\"limit\" must be a whole number, 0 or more")
        #expect(
            try await house.ok("action_set/list", ["offset": 1, "limit": .integer(Int.max)])["action_sets"]?.arrayValue?.count == 2,
            "no overflow")
    }

    @Test(
        "triggers: bad definitions refused with where and why; sun events need the location; disabled ones do not fire; a button press fires every time"
    )
    func triggers() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        try await house.ok("action_set/add", ["name": "Lamp", "actions": [["characteristic": "bulb/lightbulb/on", "value": true]]])
        func refusal(_ body: JSONValue) async throws -> String {
            var fields = body.objectValue ?? [:]
            fields["name"] = "Bad"
            fields["action_sets"] = ["lamp"]
            return try await house.refused("trigger/add", .object(fields))
        }
        #expect(
            try await refusal(["events": [["sun": "sunset", "offset": "-30m"]]])
                == "sunrise and sunset need the house's location: set location.latitude and location.longitude in homegate.yaml")
        #expect(
            try await refusal(["events": [["characteristic": "occupancy_sensor/motion_sensor/motion_detected", "value": 3]]])
                == "events[0].value: occupancy_sensor/motion_sensor/motion_detected: 3 is not a bool")
        #expect(
            try await refusal(["events": [["characteristic": "occupancy_sensor/motion_sensor/motion_detected", "for": "10m"]]])
                == "events[0].for: \"for\" needs a value or a range to hold")
        #expect(
            try await refusal(["events": [], "timer": ["fire_date": "2030-01-01T00:00"]])
                == "a trigger has either \"timer\" or \"events\", not both")
        #expect(
            try await refusal(["timer": ["fire_date": "2020-01-01T00:00"]])
                == "timer.fire_date: that time has passed; a timer without a recurrence needs a time to come")
        #expect(
            try await refusal([
                "events": [["characteristic": "bulb/lightbulb/on", "value": true]],
                "conditions": ["all": [["characteristic": "bulb/lightbulb/on", "op": "<", "value": true]]],
            ])
                == "conditions.all[0].op: < compares numbers; true is not one")
        #expect(
            try await refusal(["events": [["characteristic": "bulb/lightbulb/on"]], "conditions": ["time": ["after": "sunset+1e20"]]])
                == "conditions.time.after: expected a clock time like 22:30, or sunrise/sunset with an offset within a day like sunset-30m")
        #expect(
            try await refusal(["events": [["characteristic": "bulb/lightbulb/on"]], "conditions": ["time": ["after": "25:00"]]])
                == "conditions.time.after: expected a clock time like 22:30, or sunrise/sunset with an offset within a day like sunset-30m")
        #expect(
            try await house.refused(
                "trigger/add", ["name": "X", "action_sets": ["nope"], "events": [["characteristic": "bulb/lightbulb/on"]]])
                == "no action set 'nope'")

        try await house.ok(
            "trigger/add",
            [
                "name": "Press", "action_sets": ["lamp"],
                "events": [["characteristic": "button/stateless_programmable_switch/programmable_switch_event", "value": 0]],
            ])
        for _ in 0..<2 {
            let mark = r.mark
            try await r.publish("zigbee2mqtt/bridge/request/simulator/action", #"{"id":"button","action":"single"}"#)
            try await r.wait(for: "homegate/event/trigger/press", after: mark) { $0["change"] == "fired" }
        }
        try await house.ok("trigger/enable", ["trigger": "press", "enabled": false])
        let mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/action", #"{"id":"button","action":"single"}"#)
        try await r.wait(for: "homegate/event/button/stateless_programmable_switch/programmable_switch_event", after: mark)
        try await house.ok("trigger/list")
        #expect(
            r.since(mark).filter { $0.topic == "homegate/event/trigger/press" }.compactMap { try? JSONValue(parsing: $0.payload) }
                .filter { $0["change"] == "fired" }.isEmpty, "disabled")
        #expect(try await house.ok("trigger/list")["triggers"]?[0]?["enabled"] == false)
    }
}
