import Automation
import Foundation
import Gateway
import GatewayTesting
import JSON
import Mosquitto
import MosquittoTesting
import Persistence
import Testing

/// 2026-11-23 (a Monday) at a wall time in Amsterdam.
func amsterdam(_ hour: Int, _ minute: Int, day: Int = 23) -> Date {
    LocalTime(year: 2026, month: 11, day: day, hour: hour, minute: minute).moment(in: TimeZone(identifier: "Europe/Amsterdam")!)
}

@Suite(
    "Scenes and automations end to end: the simulator, a real mosquitto, homegate on a manual clock",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct AutomationEndToEndTests {
    /// The desk lamp becomes the hallway light; three scenes and three automations, all made over MQTT.
    static func furnish(_ house: House) async throws {
        try await house.ok("accessory/assign_room", ["accessory": "bulb", "room": "Hallway"])
        try await house.ok("accessory/rename", ["accessory": "bulb", "name": "Hallway Light"])
        try await house.ok(
            "action_set/add",
            [
                "name": "Hallway On",
                "actions": [
                    ["characteristic": "bulb/lightbulb/on", "value": true],
                    ["characteristic": "bulb/lightbulb/brightness", "value": 80],
                ],
            ])
        try await house.ok(
            "action_set/add", ["name": "Hallway Dim", "actions": [["characteristic": "bulb/lightbulb/brightness", "value": 10]]])
        try await house.ok(
            "action_set/add",
            [
                "name": "Good Night",
                "actions": [
                    ["characteristic": "bulb/lightbulb/on", "value": false],
                    ["characteristic": "power_plug/outlet/on", "value": false],
                ],
            ])
        try await house.ok(
            "trigger/add",
            [
                "name": "Motion in the hallway", "action_sets": ["Hallway On"],
                "events": [["characteristic": "occupancy_sensor/motion_sensor/motion_detected", "value": true]],
            ])
        try await house.ok(
            "trigger/add",
            [
                "name": "Hallway idle", "action_sets": ["hallway_dim"],
                "events": [["characteristic": "occupancy_sensor/motion_sensor/motion_detected", "value": false, "for": "10m"]],
            ])
        try await house.ok("trigger/add", ["name": "Good night", "action_sets": ["good_night"], "timer": ["recurrence": ["at": "22:30"]]])
    }

    /// After `advance` the gateway's ticker has run at the new time and gone back to sleep; an
    /// answer from the gateway after that comes after anything the tick published, so "nothing
    /// fired yet" is a real observation.
    func passTicks(_ house: House) async throws {
        try await house.ok("trigger/list")
    }

    func sets(_ house: House, _ device: String, after mark: Int) -> [JSONValue] {
        house.recorder.since(mark).filter { $0.topic == "zigbee2mqtt/\(device)/set" }.compactMap { try? JSONValue(parsing: $0.payload) }
    }

    @Test("motion → hallway light on at 80 %; no motion for 10 minutes → dimmed to 10 %; motion back in time cancels the dimming")
    func motionAndIdle() async throws {
        let house = try await House(startGateway: false)
        defer { house.stop() }
        let clock = ManualClock(amsterdam(20, 0))
        let gateway = try InProcessGateway(house: house, clock: clock)
        defer { Task { await gateway.stop() } }
        try await house.settled()
        try await Self.furnish(house)
        let r = house.recorder

        var mark = r.mark
        try await house.report("occupancy_sensor", ["occupancy": true])
        let on = try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark)
        #expect(on == ["state": "ON", "brightness": 203], "one /set for both writes, 80 % of 254")
        let event = try await r.wait(for: "homegate/event/bulb/lightbulb/brightness", after: mark) { $0["value"] == 80 }
        #expect(event["source"] == "trigger:motion_in_the_hallway")
        let fired = try await r.wait(for: "homegate/event/trigger/motion_in_the_hallway", after: mark) { $0["change"] == "fired" }
        #expect(fired["cause"]?["characteristic"] == "occupancy_sensor/motion_sensor/motion_detected" && fired["cause"]?["value"] == true)

        mark = r.mark
        try await house.report("occupancy_sensor", ["occupancy": false])
        try await r.wait(for: "homegate/event/occupancy_sensor/motion_sensor/motion_detected", after: mark) { $0["value"] == false }
        let pending = try await house.ok("trigger/list")["triggers"]?.arrayValue?.first { $0["id"] == "hallway_idle" }
        #expect(pending?["next_fire"] == .string(instantText(amsterdam(20, 10))), "the deadline is 10 minutes after the change")
        await clock.advance(by: 9 * 60 + 59)
        try await passTicks(house)
        #expect(sets(house, "bulb", after: mark).isEmpty, "not a second early")
        await clock.advance(by: 1)
        let dim = try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark)
        #expect(dim == ["brightness": 25])
        let idle = try await r.wait(for: "homegate/event/trigger/hallway_idle", after: mark) { $0["change"] == "fired" }
        #expect(idle["cause"]?["kind"] == "held" && idle["cause"]?["for"] == "10m")

        // Cancelled: no motion, then motion again after 5 minutes; 20 minutes later nothing has dimmed.
        mark = r.mark
        try await house.report("occupancy_sensor", ["occupancy": true])
        try await r.wait(for: "homegate/event/occupancy_sensor/motion_sensor/motion_detected", after: mark) { $0["value"] == true }
        mark = r.mark
        try await house.report("occupancy_sensor", ["occupancy": false])
        try await r.wait(for: "homegate/event/occupancy_sensor/motion_sensor/motion_detected", after: mark) { $0["value"] == false }
        await clock.advance(by: 5 * 60)
        try await house.report("occupancy_sensor", ["occupancy": true])
        try await r.wait(for: "homegate/event/occupancy_sensor/motion_sensor/motion_detected", after: mark) { $0["value"] == true }
        let listed = try await house.ok("trigger/list")["triggers"]?.arrayValue?.first { $0["id"] == "hallway_idle" }
        #expect(listed?["pending"] == nil && listed?["next_fire"] == .null, "the deadline is gone")
        await clock.advance(by: 20 * 60)
        try await passTicks(house)
        #expect(sets(house, "bulb", after: mark).allSatisfy { $0["brightness"] != 25 }, "no dimming")
        await gateway.stop()
    }

    @Test("22:30 daily → Good Night: both devices off, on time, once; and again the next day")
    func goodNight() async throws {
        let house = try await House(startGateway: false)
        defer { house.stop() }
        let clock = ManualClock(amsterdam(22, 0))
        let gateway = try InProcessGateway(house: house, clock: clock)
        defer { Task { await gateway.stop() } }
        try await house.settled()
        try await Self.furnish(house)
        try await house.ok(
            "characteristic/write",
            [
                "writes": [
                    ["accessory": "bulb", "service": "lightbulb", "characteristic": "on", "value": true],
                    ["accessory": "power_plug", "service": "outlet", "characteristic": "on", "value": true],
                ]
            ])
        let r = house.recorder
        try await r.wait(for: "homegate/state/power_plug") { $0["services"]?["outlet"]?["on"] == true }
        let mark = r.mark
        await clock.set(amsterdam(22, 29))
        try await passTicks(house)
        #expect(sets(house, "bulb", after: mark).isEmpty, "not before 22:30")
        await clock.set(amsterdam(22, 30))
        #expect(try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark) == ["state": "OFF"])
        #expect(try await r.wait(for: "zigbee2mqtt/power_plug/set", after: mark) == ["state": "OFF"])
        let fired = try await r.wait(for: "homegate/event/trigger/good_night", after: mark) { $0["change"] == "fired" }
        #expect(fired["cause"]?["kind"] == "timer" && fired["cause"]?["scheduled"] == .string(instantText(amsterdam(22, 30))))
        #expect(fired["action_sets"]?[0]?["results"]?.arrayValue?.allSatisfy { $0["status"] == "ok" } == true)
        let listed = try await house.ok("trigger/list")["triggers"]?.arrayValue?.first { $0["id"] == "good_night" }
        #expect(listed?["next_fire"] == .string(instantText(amsterdam(22, 30, day: 24))))
        await clock.set(amsterdam(23, 0))
        try await passTicks(house)
        #expect(r.since(mark).filter { $0.topic == "homegate/event/trigger/good_night" }.count == 1, "once")

        // A one-off timer fires once and can still be renamed afterwards.
        try await house.ok("trigger/add", ["name": "Once", "action_sets": ["hallway_dim"], "timer": ["fire_date": "2026-11-23T23:15"]])
        await clock.set(amsterdam(23, 15))
        try await r.wait(for: "homegate/event/trigger/once", after: mark) { $0["change"] == "fired" }
        #expect(try await house.ok("trigger/update", ["trigger": "once", "name": "Once, done"])["next_fire"] == .null)
        await gateway.stop()
    }

    @Test("a stopped gateway has let go of its database by the time stop returns, while its object still lives")
    func stopReleasesTheDatabase() async throws {
        let house = try await House(startGateway: false)
        defer { house.stop() }
        let gateway = try InProcessGateway(house: house, clock: ManualClock(amsterdam(20, 0)))
        try await house.settled()
        await gateway.stop()
        let store = try SQLiteHomeStore(path: house.broker.database)  // throws "in use" if the lock were still held
        #expect(try store.integrityCheck() == "ok")
        store.close()
        withExtendedLifetime(gateway) {}
    }

    @Test("a restart with a pending deadline: the new gateway fires it once, on time")
    func restartWithDeadline() async throws {
        let house = try await House(startGateway: false)
        defer { house.stop() }
        let clock = ManualClock(amsterdam(20, 0))
        let first = try InProcessGateway(house: house, clock: clock)
        try await house.settled()
        try await Self.furnish(house)
        let r = house.recorder
        try await house.report("occupancy_sensor", ["occupancy": true])
        try await r.wait(for: "homegate/event/trigger/motion_in_the_hallway") { $0["change"] == "fired" }
        var mark = r.mark
        try await house.report("occupancy_sensor", ["occupancy": false])
        try await r.wait(for: "homegate/event/occupancy_sensor/motion_sensor/motion_detected", after: mark) { $0["value"] == false }
        await clock.advance(by: 4 * 60)
        try await house.ok("trigger/list")
        await first.stop()

        mark = r.mark
        let second = try InProcessGateway(house: house, clock: clock)
        defer { Task { await second.stop() } }
        try await house.settled(after: mark)
        let pending = try await house.ok("trigger/list")["triggers"]?.arrayValue?.first { $0["id"] == "hallway_idle" }
        #expect(pending?["next_fire"] == .string(instantText(amsterdam(20, 10))), "the deadline survived the restart")
        await clock.advance(by: 5 * 60 + 59)
        try await passTicks(house)
        #expect(sets(house, "bulb", after: mark).allSatisfy { $0["brightness"] != 25 }, "not early")
        await clock.advance(by: 1)
        #expect(try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark) { $0["brightness"] == 25 } == ["brightness": 25])
        await clock.advance(by: 3600)
        try await passTicks(house)
        #expect(r.since(mark).filter { $0.topic == "homegate/event/trigger/hallway_idle" }.count == 1, "fired once")
        await second.stop()
    }
}
