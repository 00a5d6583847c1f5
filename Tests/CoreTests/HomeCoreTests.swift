import Automation
import Foundation
import Gateway
import HomeModel
import JSON
import Mappings
import Persistence
import Synchronization
import Testing

@Suite("The home core alone: typed commands in, typed events and replies out, no broker")
struct HomeCoreTests {
    @Test("a device report is one event with the previous value, credited to the device; the same value again is no event")
    func reports() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/bulb", ["state": "ON", "brightness": 127])
        #expect(home.changes.map(\.characteristic).sorted() == ["brightness", "on"])
        #expect(home.changes.allSatisfy { $0.source == .device && $0.previous == nil })
        #expect(home.effects.contains { if case .stateChanged("bulb") = $0 { true } else { false } })
        home.device("zigbee2mqtt/bulb", ["state": "ON", "brightness": 127])
        #expect(home.changes.isEmpty)
        home.device("zigbee2mqtt/bulb", ["state": "OFF", "brightness": 127])
        let change = try #require(home.changes.first)
        #expect(home.changes.count == 1 && change.characteristic == "on" && change.value == .bool(false) && change.previous == .bool(true))
    }

    @Test(
        "last_seen: when a device last sent its state, a report that changes nothing too; a retained one replayed by the broker, availability and a new device list leave it"
    )
    func lastSeen() throws {
        var home = try TestHome()
        // A state the broker kept and replays on subscribing: its value counts, its time does not.
        let retained = home.sources.read("zigbee2mqtt/bulb", JSONValue.object(["state": "OFF"]).serializedBytes())
        home.step(home.core.handle(retained.map { .device($0, retained: true) }, now: home.now))
        #expect(home.value("bulb/lightbulb/on") == .bool(false))
        func seen(_ home: inout TestHome) throws -> [String: Date] {
            let result = try home.ok(.values(.tree))
            guard case .accessories(_, let lastSeen) = result else {
                Issue.record("not the accessories: \(result)")
                return [:]
            }
            return lastSeen
        }
        #expect(try seen(&home)["bulb"] == nil)
        home.device("zigbee2mqtt/bulb", ["state": "ON"])
        #expect(try seen(&home)["bulb"] == TestHome.start)
        home.now += 60
        home.device("zigbee2mqtt/bulb", ["state": "ON"])
        #expect(home.changes.isEmpty)
        #expect(try seen(&home)["bulb"] == TestHome.start + 60)
        home.now += 60
        home.device("zigbee2mqtt/bulb/availability", ["state": "online"])
        home.device(
            "zigbee2mqtt/bridge/devices",
            .array(try TestHome.demoDevices()))
        #expect(try seen(&home) == ["bulb": TestHome.start + 60])
        let json = HomeJSON.json(try home.ok(.values(.tree)))["accessories"]?.arrayValue ?? []
        #expect(json.first { $0["id"] == "bulb" }?["last_seen"] == "2026-11-18T11:07:40.000Z")
        #expect(json.first { $0["id"] == "power_plug" }?["last_seen"] == nil)
    }

    @Test("writes to one device in one command are one /set; the device's echo is credited to the writer, not to the device")
    func coalescedWrite() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/bulb", ["state": "OFF", "brightness": 10])
        let result = try home.ok(
            .values(.write([TestHome.write("bulb/lightbulb/on", true), TestHome.write("bulb/lightbulb/brightness", 50)])))
        guard case .writes(let outcomes) = result else { Issue.record("not a write result: \(result)"); return }
        #expect(outcomes.allSatisfy { (try? $0.get()) != nil })
        #expect(home.sets.count == 1)
        #expect(home.sets.first?.topic == "zigbee2mqtt/bulb/set")
        #expect(home.sets.first?.payload["state"] == "ON" && home.sets.first?.payload["brightness"] == 127)
        #expect(home.changes.isEmpty, "nothing changes until the device says so")
        home.device("zigbee2mqtt/bulb", ["state": "ON", "brightness": 127])
        #expect(home.changes.count == 2 && home.changes.allSatisfy { $0.source == .api })
        home.device("zigbee2mqtt/bulb", ["state": "OFF", "brightness": 127])
        #expect(home.changes.first?.source == .device, "a later change is the device's own")
    }

    @Test("a light's writes carry the longest transition asked for in its one /set; a plug's writes carry none")
    func transitions() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/bulb", ["state": "OFF", "brightness": 10])
        home.device("zigbee2mqtt/power_plug", ["state": "OFF"])
        let request = try HomeCommand.parse(
            "characteristic/write",
            [
                "writes": [
                    ["characteristic": "bulb/lightbulb/on", "value": true, "transition": 1],
                    ["characteristic": "bulb/lightbulb/brightness", "value": 50, "transition": 2.5],
                    ["characteristic": "power_plug/outlet/on", "value": true, "transition": 3],
                ]
            ], timeZone: .gmt)
        _ = try home.ok(request)
        #expect(home.sets.map(\.topic) == ["zigbee2mqtt/bulb/set", "zigbee2mqtt/power_plug/set"])
        #expect(home.sets.first?.payload == ["state": "ON", "brightness": 127, "transition": 2.5])
        #expect(home.sets.last?.payload == ["state": "ON"], "Zigbee2MQTT has no transition for a plug")
        _ = try home.ok(.values(.write([TestHome.write("bulb/lightbulb/brightness", 80)])))
        #expect(home.sets.last?.payload == ["brightness": 203], "no transition asked: the light's own default")
        _ = try home.ok(
            try HomeCommand.parse(
                "characteristic/write", ["writes": [["characteristic": "bulb/lightbulb/brightness", "value": 60, "transition": 1.26]]],
                timeZone: .gmt))
        #expect(home.sets.last?.payload == ["brightness": 152, "transition": 1.3], "to the tenth, as Zigbee runs it")

        for (given, why) in [
            (JSONValue.integer(-1), "below 0"), (.double(6553.6), "above Zigbee's 16 bits of tenths"), ("slow", "not a number"),
        ] {
            let refused = #expect(throws: HomeError.self, "\(why)") {
                try HomeCommand.parse(
                    "characteristic/write", ["writes": [["characteristic": "bulb/lightbulb/on", "value": true, "transition": given]]],
                    timeZone: .gmt)
            }
            #expect(refused?.field == "transition" && refused?.message == #""transition" must be seconds, a number from 0 to 6553.5"#)
        }
    }

    @Test("refusals carry a kind a front end can map, and the field where there is one")
    func refusalKinds() throws {
        var home = try TestHome()
        guard
            case .writes(let outcomes) = try home.ok(
                .values(
                    .write([
                        TestHome.write("lamp/lightbulb/on", true), TestHome.write("bulb/lightbulb/brightness", 150),
                        TestHome.write("bulb/lightbulb/on", "yes"),
                    ])))
        else { Issue.record("not a write result"); return }
        let errors: [HomeError?] = outcomes.map { if case .failure(let error) = $0 { error } else { nil } }
        #expect(errors.map { $0?.kind } == [HomeError.Kind.notFound, .invalid, .invalid])
        #expect(errors[0]?.message == "lamp: no such accessory")
        #expect(home.sets.isEmpty)

        home.device("zigbee2mqtt/bulb/availability", ["state": "offline"])
        guard case .writes(let offline) = try home.ok(.values(.write([TestHome.write("bulb/lightbulb/on", true)]))),
            case .failure(let unreachable) = offline[0]
        else { Issue.record("the write to an offline bulb went out"); return }
        #expect(unreachable.kind == .unreachable && unreachable.message == "bulb: is not reachable")

        _ = try home.ok(.structure(.addHome(name: "Cabin")))
        #expect(try home.refused(.structure(.addHome(name: "cabin"))).kind == .conflict)
        #expect(try home.refused(.structure(.removeRoom("attic", home: nil))).kind == .notFound)
        #expect(try home.refused(.structure(.removeHome("Home"))).kind == .conflict, "the primary home stays")
        let unknown = try home.refused(
            .actionSets(.add(name: "X", home: nil, actions: [Action(TestHome.path("bulb/lightbulb/hue"), .int(3))])))
        #expect(unknown.kind == .invalid && unknown.field == "actions[0]")
        do {
            _ = try HomeCommand.parse(
                "trigger/add", ["name": "T", "events": [["characteristic": "bulb/lightbulb/on", "for": "ten"]]], timeZone: .gmt)
            Issue.record("a bad duration was read")
        } catch {
            #expect(error.kind == HomeError.Kind.invalid && error.field == "events[0].for", "\(error)")
        }
        let typo = #expect(throws: HomeError.self) { try HomeCommand.parse("home/add", ["name": "Cabin", "nmae": "x"], timeZone: .gmt) }
        #expect(typo?.field == "nmae" && typo?.message == #"unknown field "nmae" (did you mean 'name'?); this command takes "name""#)
        let malformed = #expect(throws: HomeError.self) {
            try HomeCommand.parse(
                "characteristic/write", ["writes": [["characteristic": "bulb/lightbulb/on", "value": true], ["characteristic": "bulb"]]],
                timeZone: .gmt)
        }
        #expect(malformed?.field == "writes[1]", "a write with a malformed entry is refused whole, not written without it")
    }

    @Test(
        "what a device's mapping gives no way to write is read-only there: not offered as writable, refused as a write and in an action set"
    )
    func unwritableHere() throws {
        var home = try TestHome()
        let radiator = try #require(home.core.accessory("bosch_radiator"))
        let units = try #require(radiator["thermostat"]?["temperature_display_units"])
        #expect(units.type.isWritable && !units.isWritable, "HAP lets it be written; Zigbee2MQTT exposes no way to")
        #expect(units.treeJSON["permissions"] == ["read", "notify"])
        #expect(radiator["thermostat"]?["target_temperature"]?.treeJSON["permissions"] == ["read", "write", "notify"])

        let why = "bosch_radiator/thermostat/temperature_display_units: this device's mapping gives no way to write it"
        guard
            case .writes(let outcomes) = try home.ok(
                .values(.write([TestHome.write("bosch_radiator/thermostat/temperature_display_units", 1)]))),
            case .failure(let refused) = outcomes[0]
        else { Issue.record("the write was taken"); return }
        #expect(refused.kind == .invalid && refused.message == why)
        #expect(home.sets.isEmpty)
        let scene = try home.refused(
            .actionSets(
                .add(
                    name: "Cosy", home: nil,
                    actions: [Action(TestHome.path("bosch_radiator/thermostat/temperature_display_units"), .int(0))])))
        #expect(scene.kind == .invalid && scene.field == "actions[0]" && scene.message == "actions[0]: " + why, "\(scene.message)")
    }

    @Test("a change to the home is replied to, and its events told, only once it is stored; the events come first")
    func durableReplies() throws {
        var home = try TestHome()
        home.lastTicket += 1
        let output = home.core.handle([.command(.structure(.addRoom(name: "Attic", home: nil)), Ticket(home.lastTicket))], now: home.now)
        #expect(output.now.allSatisfy { if case .reply = $0 { false } else if case .event = $0 { false } else { true } })
        #expect(output.store.rooms["attic"]?.name == "Attic")
        let later = output.afterCommit.map { effect in
            switch effect {
            case .event(.room("attic", .added, let room)): "event \(room?.name ?? "")"
            case .reply(let reply): "reply \(reply.error == nil)"
            default: "other"
            }
        }
        #expect(later == ["event Attic", "reply true"])

        // A value change is not stored by a command, and goes at once.
        home.device("zigbee2mqtt/bulb", ["state": "ON"])
        #expect(home.stored.values[TestHome.path("bulb/lightbulb/on")] == .bool(true))
    }

    @Test("an action set runs its writes as one /set per device, credits the changes to itself, and says what each action did")
    func actionSet() throws {
        var home = try TestHome()
        guard
            case .actionSet(let set) = try home.ok(
                .actionSets(
                    .add(
                        name: "Evening", home: nil,
                        actions: [
                            Action(TestHome.path("bulb/lightbulb/on"), .bool(true)),
                            Action(TestHome.path("bulb/lightbulb/brightness"), .int(20)),
                            Action(TestHome.path("power_plug/outlet/on"), .bool(false)),
                        ])))
        else { Issue.record("no action set"); return }
        home.device("zigbee2mqtt/power_plug/availability", ["state": "offline"])
        let answered = home.run(.actionSets(.execute("evening", home: nil)))
        let reply = try #require(answered)
        #expect(reply.error?.kind == .unreachable && reply.error?.message == "1 of 3 actions failed")
        guard case .execution(let run) = reply.result else { Issue.record("no run"); return }
        #expect(run.actionSet == set.id && run.failures == 1)
        #expect(home.sets.map(\.topic) == ["zigbee2mqtt/bulb/set"])
        let executed = home.events.contains { if case .actionSet(set.id, let event) = $0 { event.change == .executed } else { false } }
        #expect(executed)
        home.device("zigbee2mqtt/bulb", ["state": "ON", "brightness": 51])
        #expect(home.changes.count == 2 && home.changes.allSatisfy { $0.source == .actionSet(set.id) })
    }

    @Test("a trigger on motion runs its action set at the batch's end; one held for a minute fires when the clock gets there")
    func triggers() throws {
        var home = try TestHome()
        _ = try home.ok(.actionSets(.add(name: "Light on", home: nil, actions: [Action(TestHome.path("bulb/lightbulb/on"), .bool(true))])))
        _ = try home.ok(
            .actionSets(.add(name: "Light off", home: nil, actions: [Action(TestHome.path("bulb/lightbulb/on"), .bool(false))])))
        let motion = TestHome.path("occupancy_sensor/motion_sensor/motion_detected")
        _ = try home.ok(
            .triggers(
                .add(
                    TriggerDraft(
                        name: "Motion", actionSets: ["light_on"],
                        kind: .events([.characteristic(motion, .value(.bool(true)), held: nil)])))))
        _ = try home.ok(
            .triggers(
                .add(
                    TriggerDraft(
                        name: "Quiet", actionSets: ["light_off"],
                        kind: .events([.characteristic(motion, .value(.bool(false)), held: 60)])))))
        home.device("zigbee2mqtt/occupancy_sensor", ["occupancy": true])
        #expect(home.sets.map(\.payload) == [["state": "ON"]])
        let fired = home.events.contains { if case .trigger("motion", let event) = $0 { event.change == .fired } else { false } }
        #expect(fired)

        home.device("zigbee2mqtt/occupancy_sensor", ["occupancy": false])
        #expect(home.sets.isEmpty)
        home.advance(59)
        #expect(home.sets.isEmpty, "not held for a minute yet")
        home.advance(1)
        #expect(home.sets.map(\.payload) == [["state": "OFF"]])
    }

    @Test("a step's writes to devices lead its output, once, in order, apart from its events and replies; the rest is as before")
    func writesFirst() throws {
        var home = try TestHome()
        _ = try home.ok(.actionSets(.add(name: "Light on", home: nil, actions: [Action(TestHome.path("bulb/lightbulb/on"), .bool(true))])))
        let motion = TestHome.path("occupancy_sensor/motion_sensor/motion_detected")
        _ = try home.ok(
            .triggers(
                .add(
                    TriggerDraft(
                        name: "Motion", actionSets: ["light_on"], kind: .events([.characteristic(motion, .value(.bool(true)), held: nil)])))
            ))
        let fired = home.core.handle(home.sources.read("zigbee2mqtt/occupancy_sensor", (["occupancy": true] as JSONValue).serializedBytes()), now: home.now)
        #expect(fired.first.map { DeviceSources.message(for: $0).topic } == ["zigbee2mqtt/bulb/set"])
        #expect(!(fired.now + fired.afterCommit).contains { $0.isDeviceWrite }, "in `first`, not in the step's effects as well")
        #expect((fired.now + fired.afterCommit).contains { if case .event(.trigger("motion", let event)) = $0 { return event.change == .fired } else { return false } })
        #expect(fired.store.values[motion] == .bool(true), "the step's store changes are collected after the writes, not lost")

        // A command's writes, and a /get with them, go the same way, in the order they were made.
        home.lastTicket += 1
        let written = home.core.handle(
            [.command(.values(.write([TestHome.write("bulb/lightbulb/on", false), TestHome.write("power_plug/outlet/on", true)])), Ticket(home.lastTicket))],
            now: home.now)
        #expect(written.first.map { DeviceSources.message(for: $0).topic } == ["zigbee2mqtt/bulb/set", "zigbee2mqtt/power_plug/set"])
        #expect(!written.now.contains { $0.isDeviceWrite })
    }

    @Test("what the core stores brings the home back: the action set, the trigger and the last values, after a restart")
    func restart() async throws {
        var home = try TestHome()
        _ = try home.ok(.structure(.addRoom(name: "Attic", home: nil)))
        _ = try home.ok(.accessories(.assignRoom(accessory: "bulb", room: "attic", home: nil)))
        _ = try home.ok(.actionSets(.add(name: "Light on", home: nil, actions: [Action(TestHome.path("bulb/lightbulb/on"), .bool(true))])))
        _ = try home.ok(
            .triggers(
                .add(
                    TriggerDraft(
                        name: "Motion", actionSets: ["light_on"],
                        kind: .events([
                            .characteristic(
                                TestHome.path("occupancy_sensor/motion_sensor/motion_detected"),
                                .value(.bool(true)), held: nil)
                        ])))))
        home.device("zigbee2mqtt/bulb", ["state": "OFF", "brightness": 254])

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-core-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let store = try SQLiteHomeStore(path: file)
        try await store.write(home.stored)
        let loaded = try store.load()
        store.close()

        var again = try TestHome(stored: loaded)
        #expect(again.core.accessory("bulb")?.room == "attic")
        #expect(again.value("bulb/lightbulb/brightness") == .int(100))
        guard case .triggers(_, _, let triggers) = try again.ok(.triggers(.list(home: nil, page: .all))) else {
            Issue.record("no triggers"); return
        }
        #expect(triggers.map(\.trigger.id) == ["motion"])
        again.device("zigbee2mqtt/occupancy_sensor", ["occupancy": true])
        #expect(again.sets.map(\.payload) == [["state": "ON"]])
    }

    @Test("what is stored follows what is announced: an action set removed, the trigger it leaves, an execute-once fire, a run")
    func storedFollowsEvents() throws {
        var home = try TestHome()
        _ = try home.ok(.actionSets(.add(name: "Light on", home: nil, actions: [Action(TestHome.path("bulb/lightbulb/on"), .bool(true))])))
        _ = try home.ok(
            .actionSets(.add(name: "Fan off", home: nil, actions: [Action(TestHome.path("power_plug/outlet/on"), .bool(false))])))
        _ = try home.ok(
            .triggers(
                .add(
                    TriggerDraft(
                        name: "Motion", actionSets: ["light_on", "fan_off"],
                        kind: .events([
                            .characteristic(
                                TestHome.path("occupancy_sensor/motion_sensor/motion_detected"),
                                .value(.bool(true)), held: nil)
                        ]),
                        executeOnce: true))))
        home.stored = StoreBatch()
        _ = try home.ok(.actionSets(.remove("fan_off", home: nil)))
        #expect(home.stored.actionSets.contains("fan_off") && home.stored.actionSets["fan_off"] == nil, "stored as gone")
        #expect(home.stored.triggers["motion"]?.actionSets == ["light_on"], "the trigger that ran it is stored without it")

        home.stored = StoreBatch()
        home.device("zigbee2mqtt/occupancy_sensor", ["occupancy": true])
        #expect(home.sets.map(\.payload) == [["state": "ON"]])
        #expect(home.stored.triggers["motion"]?.enabled == false, "fired once: stored disabled, so a restart cannot fire it again")
        #expect(home.stored.lastFired["motion"] == TestHome.start && home.stored.lastExecuted["light_on"] == TestHome.start)
        #expect(home.stored.values[TestHome.path("occupancy_sensor/motion_sensor/motion_detected")] == .bool(true))
        #expect(!home.stored.actionSets.contains("light_on"), "a run stores when it ran, not the action set again")
    }

    @Test("a timer made over the API fires on the minute in the home's time zone, once, and again the next day")
    func timer() throws {
        var home = try TestHome()
        _ = try home.ok(
            .actionSets(.add(name: "Good night", home: nil, actions: [Action(TestHome.path("bulb/lightbulb/on"), .bool(false))])))
        _ = try home.ok(
            try HomeCommand.parse(
                "trigger/add",
                [
                    "name": "Good night", "action_sets": ["good_night"],
                    "timer": ["recurrence": ["at": "22:30"]],
                ], timeZone: home.core.timeZone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Amsterdam")!
        let due = try #require(calendar.date(bySettingHour: 22, minute: 30, second: 0, of: TestHome.start))
        home.advance(due.timeIntervalSince(home.now) - 1)
        #expect(home.sets.isEmpty, "not a second early")
        home.advance(1)
        #expect(home.sets.map(\.payload) == [["state": "OFF"]])
        let fired = home.events.filter { if case .trigger("good_night", let event) = $0 { event.change == .fired } else { false } }
        #expect(fired.count == 1)
        home.advance(60)
        #expect(home.sets.isEmpty, "once")
        home.advance(86_400 - 61)
        #expect(home.sets.isEmpty)
        home.advance(1)
        #expect(home.sets.map(\.payload) == [["state": "OFF"]], "the next day at 22:30")
    }

    @Test("devices in the bridge's list: one renamed keeps its accessory and is written at its new name, one removed is gone with an event")
    func liveDevices() throws {
        var home = try TestHome()
        var devices = try TestHome.demoDevices()
        for i in devices.indices where devices[i]["friendly_name"] == "bulb" {
            guard var fields = devices[i].objectValue else { continue }
            fields["friendly_name"] = "desk_lamp"
            devices[i] = .object(fields)
        }
        devices.removeAll { $0["friendly_name"] == "curtain" }
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        #expect(home.core.accessory("bulb")?.name != nil && home.core.accessory("curtain") == nil)
        let gone = home.events.contains { if case .accessory("curtain", .removed, _) = $0 { true } else { false } }
        #expect(gone, "the removed device is announced")
        _ = home.run(.values(.write([TestHome.write("bulb/lightbulb/on", true)])))
        #expect(home.sets.map(\.topic) == ["zigbee2mqtt/desk_lamp/set"])
        home.device("zigbee2mqtt/desk_lamp", ["state": "ON"])
        #expect(home.value("bulb/lightbulb/on") == .bool(true), "reports under the new name reach the same accessory")
    }

    @Test("the bridge's device list again as it was (a restart, a reconnect's replay) is nothing: no events, states, tree or log lines")
    func sameDevicesAgain() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/bulb", ["state": "ON", "brightness": 200])
        _ = home.core.drainNotices()
        home.step(home.core.handle(home.sources.read("zigbee2mqtt/bridge/devices", try TestHome.demoDeviceBytes()), now: home.now))
        #expect(home.effects.isEmpty, "\(home.effects)")
        #expect(home.core.drainNotices().isEmpty)
        #expect(home.value("bulb/lightbulb/on") == .bool(true), "the accessory and its values are as they were")

        // A list with one device more is a new list: the home is built from it, and what is published
        // is what changed: the tree, and the state of the accessory that is new, not of every one.
        var devices = try TestHome.demoDevices()
        devices.append(try TestHome.copy(of: "bulb", as: "bulb_2", address: "0x00000000000b0b2"))
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        #expect(home.core.accessory("bulb_2") != nil)
        #expect(home.effects.contains { if case .treeChanged = $0 { true } else { false } })
        let states = home.effects.compactMap { if case .stateChanged(let id) = $0 { id } else { nil } }
        #expect(states == ["bulb_2"], "only the new accessory's state: \(states)")

        // A device that is no accessory (the coordinator) renamed changes nothing that is published.
        guard let coordinator = devices.firstIndex(where: { $0["type"] == "Coordinator" }), var fields = devices[coordinator].objectValue
        else { Issue.record("no coordinator in the device list"); return }
        fields["friendly_name"] = "the_coordinator"
        devices[coordinator] = .object(fields)
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        #expect(!home.effects.contains { if case .treeChanged = $0 { true } else { false } }, "\(home.effects)")
    }

    @Test(
        "in a changed device list, the devices that did not change keep their accessories; a name a rename frees goes to the one that wanted it; edited overrides still reach every device"
    )
    func unchangedDevicesKept() throws {
        var home = try TestHome()
        var devices = try TestHome.demoDevices()
        // An accessory name taken in the home, but for its case; listed before the bulb that has it.
        devices.insert(try TestHome.copy(of: "bulb", as: "BULB", address: "0x00000000000b0b2"), at: 0)
        let index = try #require(devices.firstIndex { $0["friendly_name"] == "bulb" })
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        let twinID = try #require(home.core.accessories.first { $0.name.hasPrefix("BULB") }?.id)
        #expect(home.core.accessory(twinID)?.name == "BULB 2")
        home.device("zigbee2mqtt/bulb", ["state": "ON"])
        home.device("zigbee2mqtt/BULB", ["state": "ON"])

        // The first bulb renamed in Zigbee2MQTT: its old name is free, and the twin, otherwise the
        // same and listed before it, takes the name it wanted, as it would at a start.
        guard var fields = devices[index].objectValue else { return }
        fields["friendly_name"] = "desk_lamp"
        devices[index] = .object(fields)
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        #expect(home.core.accessory("bulb")?.name == "desk_lamp")
        #expect(home.core.accessory(twinID)?.name == "BULB")
        #expect(home.value("bulb/lightbulb/on") == .bool(true) && home.value("\(twinID)/lightbulb/on") == .bool(true))
        let states = Set(home.effects.compactMap { if case .stateChanged(let id) = $0 { id } else { nil } })
        #expect(states == ["bulb", twinID], "the two renamed accessories, no other: \(states)")

        // Mapping files edited: an override for a device that did not change applies all the same.
        var mappings = MappingSet()
        #expect(
            mappings.add(
                file: "zigbee2mqtt.yaml",
                text:
                    "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\ndevices:\n  BULB: { name: Reading lamp }\n  curtain: { exclude: true }\n"
            ).isEmpty)
        home.step(home.core.reload(mappings, now: home.now))
        #expect(home.core.accessory(twinID)?.name == "Reading lamp")
        #expect(home.core.accessory("curtain") == nil)
        let rebuilt = home.effects.compactMap { if case .stateChanged(let id) = $0 { id } else { nil } }
        #expect(rebuilt == [twinID], "every accessory built again, only the one that came out different: \(rebuilt)")
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        #expect(home.core.accessory(twinID)?.name == "Reading lamp" && home.core.accessory("curtain") == nil, "and it is kept")
    }

    @Test("what is not shown of devices that leave the same out is said once, naming them, and only for devices not said before")
    func notShownOnce() throws {
        var home = try TestHome()
        _ = home.core.drainNotices()
        var devices = try TestHome.demoDevices()
        for n in 2...6 { devices.append(try TestHome.copy(of: "bulb", as: "bulb_\(n)", address: "0x00000000000b0b\(n)")) }
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        let lines = home.core.drainNotices().map(\.message).filter { $0.contains("not shown") }
        #expect(lines.count == 1, "\(lines)")
        #expect(
            lines.first?.hasPrefix("zigbee2mqtt devices bulb_2, bulb_3, bulb_4 and 2 more: not shown: power_on_behavior") == true,
            "\(lines)")

        // Devices said before are not said again; new ones are, as one device or as a few.
        for (added, line) in [
            (["bulb_7", "bulb_8"], "zigbee2mqtt devices bulb_7 and bulb_8: "), (["bulb_9"], "zigbee2mqtt device bulb_9: "),
        ] {
            for (n, name) in added.enumerated() {
                devices.append(try TestHome.copy(of: "bulb", as: name, address: "0x00000000000c0c\(name.last!)\(n)"))
            }
            home.device("zigbee2mqtt/bridge/devices", .array(devices))
            let again = home.core.drainNotices().map(\.message).filter { $0.contains("not shown") }
            #expect(again.count == 1 && again.first?.hasPrefix(line + "not shown: ") == true, "\(again)")
        }
    }

    @Test("devices of one model keep one copy of their rules, and each is still its own accessory: its values, its writes, its topic")
    func oneModelManyDevices() throws {
        var home = try TestHome()
        var devices = try TestHome.demoDevices()
        devices.append(try TestHome.copy(of: "bulb", as: "bulb_twin", address: "0x00158d0009f8e7d6"))
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        for id in ["bulb", "bulb_twin"] {
            #expect(home.core.accessory(id)?["lightbulb"]?["on"]?.isWritable == true, "\(id) is writable")
        }
        _ = home.run(.values(.write([TestHome.write("bulb_twin/lightbulb/brightness", 50)])))
        #expect(home.sets.map(\.topic) == ["zigbee2mqtt/bulb_twin/set"] && home.sets.first?.payload["brightness"] == 127)
        _ = home.run(.values(.write([TestHome.write("bulb/lightbulb/on", true)])))
        #expect(home.sets.map(\.topic) == ["zigbee2mqtt/bulb/set"] && home.sets.first?.payload["state"] == "ON")
        home.device("zigbee2mqtt/bulb", ["state": "OFF"])
        home.device("zigbee2mqtt/bulb_twin", ["state": "ON"])
        #expect(home.value("bulb/lightbulb/on") == .bool(false) && home.value("bulb_twin/lightbulb/on") == .bool(true))
    }

    @Test("the bridge offline makes every accessory unreachable and refuses writes as unreachable; online, each is as its device says")
    func bridgeOffline() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/power_plug/availability", ["state": "offline"])
        home.device("zigbee2mqtt/bridge/state", ["state": "offline"])
        #expect(home.core.accessories.allSatisfy { !$0.reachable })
        guard case .writes(let outcomes)? = home.run(.values(.write([TestHome.write("bulb/lightbulb/on", true)])))?.result,
            case .failure(let error)? = outcomes.first
        else { Issue.record("the write was not refused"); return }
        #expect(error.kind == .unreachable && home.sets.isEmpty)
        home.device("zigbee2mqtt/bridge/state", ["state": "online"])
        #expect(home.core.accessory("bulb")?.reachable == true && home.core.accessory("power_plug")?.reachable == false)
    }

    @Test("identify asks the device to show itself: Zigbee2MQTT's identify where exposed, else a blink effect; refused with why otherwise")
    func identify() throws {
        var home = try TestHome()
        guard case .identified(let accessory, let payload) = try home.ok(.accessories(.identify("bulb"))) else {
            Issue.record("not an identify result"); return
        }
        #expect(accessory == "bulb" && payload == ["identify": "identify"])
        #expect(home.sets.map(\.topic) == ["zigbee2mqtt/bulb/set"] && home.sets.first?.payload == ["identify": "identify"])
        _ = try home.ok(.accessories(.identify("bulb_color_2")))
        #expect(home.sets.map(\.topic) == ["zigbee2mqtt/bulb_color_2/set"] && home.sets.first?.payload == ["effect": "blink"])
        let sensor = try home.refused(.accessories(.identify("weather_sensor")))
        #expect(sensor.kind == .invalid && sensor.message.contains("exposes neither identify nor a blink effect"), "\(sensor.message)")
        #expect(home.sets.isEmpty)
        home.device("zigbee2mqtt/bulb/availability", ["state": "offline"])
        #expect(try home.refused(.accessories(.identify("bulb"))).kind == .unreachable)
        #expect(try home.refused(.accessories(.identify("lamp"))).kind == .notFound)
        guard case .accessories(.identify("bulb")) = try HomeCommand.parse("accessory/identify", ["accessory": "bulb"], timeZone: .gmt) else {
            Issue.record("accessory/identify was not read"); return
        }
    }
}
