import Automation
import Foundation
import HomeModel
import JSON
import Mappings
import Testing

@testable import GatewayCore

/// The core's parts, each driven alone: what each keeps holds without the step around it.
@Suite("The core's parts on their own: accessories and values, the layout, automations, the bridges")
struct CorePartsTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// A lamp whose `on` reports back on a state topic, and a bell with a set topic and no state: nothing echoes its writes.
    static let lamps = """
        source: mqtt
        accessories:
          - id: lamp
            name: Lamp
            services:
              - type: lightbulb
                characteristics:
                  on:
                    state: { topic: stat/lamp/POWER, map: { "ON": true, "OFF": false } }
                    set: { topic: cmnd/lamp/POWER, map: { "true": "ON", "false": "OFF" } }
          - id: other_lamp
            name: Lamp
            services:
              - type: lightbulb
                characteristics:
                  on:
                    state: { topic: stat/other/POWER, map: { "ON": true, "OFF": false } }
        """

    static func entries() throws -> [AccessoryTable.Entry] {
        var mappings = MappingSet()
        let problems = mappings.add(file: "lamps.yaml", text: lamps)
        #expect(problems.isEmpty, "\(problems)")
        return mappings.accessories.map { AccessoryTable.Entry(accessory: $0.accessory, source: .explicit($0)) }
    }

    static let on = CharacteristicPath(accessory: "lamp", service: "lightbulb", characteristic: "on")

    static func set(_ value: Bool) -> CharacteristicUpdate {
        CharacteristicUpdate(service: "lightbulb", characteristic: "on", value: .bool(value))
    }

    static func changes(_ outcomes: [AccessoryTable.Outcome]) -> [CharacteristicChange] {
        outcomes.compactMap { if case .changed(let change) = $0 { change } else { nil } }
    }

    // MARK: Accessories and values

    @Test("the table credits a device's echo to whoever wrote it, and a report with nothing pending to the device")
    func echoCredited() throws {
        var table = AccessoryTable()
        for entry in try Self.entries() { _ = table.insert(entry) }
        let sent = table.send([Self.set(true)], to: "lamp", source: .actionSet("evening"), deadline: Self.start + 10)
        #expect(sent.commands.count == 1 && sent.optimistic.isEmpty, "the lamp reports back: its write waits for the echo")

        var outcomes: [AccessoryTable.Outcome] = []
        table.apply([Self.set(true)], to: "lamp", at: Self.start + 1, into: &outcomes)
        #expect(Self.changes(outcomes).map(\.source) == [.actionSet("evening")])

        outcomes = []
        table.apply([Self.set(false)], to: "lamp", at: Self.start + 2, into: &outcomes)
        #expect(Self.changes(outcomes).map(\.source) == [.device], "the write was answered: a later change is the device's")
        outcomes = []
        table.apply([Self.set(false)], to: "lamp", at: Self.start + 3, into: &outcomes)
        #expect(outcomes.isEmpty, "the same value again is no change")
    }

    @Test("the table answers a read when the device reports, and one the device leaves unanswered at its deadline")
    func readsAnswered() throws {
        var table = AccessoryTable()
        for entry in try Self.entries() { _ = table.insert(entry) }
        table.awaitRead(Self.on, ticket: Ticket(1), deadline: Self.start + 3)
        #expect(table.expire(at: Self.start + 2).isEmpty, "not before its deadline")
        var outcomes: [AccessoryTable.Outcome] = []
        table.apply([Self.set(true)], to: "lamp", at: Self.start + 2, into: &outcomes)
        guard case .answered(let ticket, let read) = outcomes.first else { Issue.record("no answer: \(outcomes)"); return }
        #expect(ticket == Ticket(1) && read.value == .bool(true) && read.fresh)

        table.awaitRead(Self.on, ticket: Ticket(2), deadline: Self.start + 5)
        let expired = table.expire(at: Self.start + 6)
        #expect(expired.map(\.0.ticket) == [Ticket(2)] && expired.first?.1 == .bool(true), "answered with the value last known")
    }

    @Test("the table refuses a write to an unreachable accessory and a value that is not one, and keeps the values of one that returns")
    func writesChecked() throws {
        var table = AccessoryTable()
        let entries = try Self.entries()
        for entry in entries { _ = table.insert(entry) }
        let write = WriteRequest(accessory: "lamp", service: "lightbulb", characteristic: "on", value: true)
        #expect((try? table.check(write).get()) == .bool(true))
        #expect((try? table.check(WriteRequest(accessory: "lamp", service: "lightbulb", characteristic: "on", value: [1])).get()) == nil)
        #expect(table.setReachable("lamp", false, reason: "its availability topic says it is offline") == true)
        #expect(table.setReachable("lamp", false, reason: "its availability topic says it is offline") == nil, "no change, nothing to say")
        guard case .failure(let error) = table.check(write) else { Issue.record("an unreachable lamp took a write"); return }
        #expect(error.message.contains("not reachable"))

        var outcomes: [AccessoryTable.Outcome] = []
        table.apply([Self.set(true)], to: "lamp", at: Self.start, into: &outcomes)
        #expect(table.remove("lamp") != nil && table["lamp"] == nil)
        let (old, returned) = table.insert(entries[0])
        #expect(old == nil && returned, "an accessory that left while running is said to be back")
        #expect(
            table["lamp"]?.accessory[Self.on]?.value == nil, "a rebuilt accessory starts from its mapping; the step carries values over")
    }

    // MARK: The layout

    @Test("the layout names a second accessory wanting a name taken in its home with a number, and refuses the name to a rename")
    func namesUniqueInHome() throws {
        var layout = HomeLayout(.initial())
        let entries = try Self.entries()
        var labels: [HomeLayout.Label] = []
        for entry in entries {
            layout.place(accessory: entry.accessory.id, requestedRoom: nil)
            let label = layout.label(entry.accessory, mappingName: entry.accessory.name)
            labels.append(try #require(label))
        }
        #expect(labels.map(\.name) == ["Lamp", "Lamp 2"])
        #expect(labels[1].wanted == "Lamp" && labels[0].wanted == nil)
        let home = labels[0].home
        #expect(throws: StructureError.self) {
            try layout.checkAccessoryName("lamp", in: home, for: "other_lamp") { _ in "Lamp" }
        }
        #expect((try? layout.checkAccessoryName("lamp", in: home, for: "lamp") { _ in nil }) != nil, "its own name is free to it")

        // The first leaves: its name is free again for the second.
        var first = entries[0].accessory
        first.name = labels[0].name
        first.home = home
        layout.departed(first)
        #expect(layout.isFree("Lamp", in: home))
    }

    @Test("the layout refuses a room name twice in a home, whatever its case, and records each change once")
    func roomNamesUnique() throws {
        var layout = HomeLayout(.initial())
        _ = layout.drainChanges()
        _ = try layout.run(.addRoom(name: "Kitchen", home: nil)) { _ in [] }
        #expect(throws: StructureError.self) { try layout.run(.addRoom(name: "KITCHEN", home: nil)) { _ in [] } }
        #expect(layout.drainChanges().map(\.kind) == [.room])
        guard case .rooms(_, let rooms) = try layout.run(.listRooms(home: nil), accessoriesIn: { _ in ["lamp"] }) else {
            Issue.record("no rooms")
            return
        }
        #expect(rooms.map(\.room.name).sorted() == ["Default Room", "Kitchen"] && rooms.allSatisfy { $0.accessories == ["lamp"] })
    }

    // MARK: Automations

    static func timer(at date: Date, id: String = "wake") -> Trigger {
        let gmt = TimeZone(identifier: "GMT")!
        return Trigger(
            id: id, name: id, home: "home", actionSets: ["morning"],
            kind: .timer(TimerSchedule(fireDate: LocalTime(date, in: gmt), timeZone: gmt, recurrence: nil)))
    }

    @Test("automations fire a timer at its time and not before, once")
    func timerFiresAtItsTime() {
        var automation = Automations(clock: ClockContext(timeZone: TimeZone(identifier: "GMT")!, location: nil))
        _ = automation.put(ActionSet(id: "morning", name: "Morning", home: "home"), change: .added)
        _ = automation.add(Self.timer(at: Self.start + 60), now: Self.start)
        #expect(automation.nextDue() == Self.start + 60)
        #expect(automation.due(now: Self.start + 59, settled: true, present: { _ in true }, value: { _ in nil }).isEmpty)
        let fired = automation.due(now: Self.start + 60, settled: true, present: { _ in true }, value: { _ in nil })
        #expect(fired.map(\.trigger) == ["wake"] && fired.first?.actionSets == ["morning"])
        #expect(automation.due(now: Self.start + 120, settled: true, present: { _ in true }, value: { _ in nil }).isEmpty)
    }

    @Test("automations: an action set removed is unlinked from the triggers that ran it; a removed home takes its automations")
    func removalUnlinks() {
        var automation = Automations(clock: ClockContext(timeZone: TimeZone(identifier: "GMT")!, location: nil))
        _ = automation.put(ActionSet(id: "morning", name: "Morning", home: "home"), change: .added)
        _ = automation.add(Self.timer(at: Self.start + 60), now: Self.start)
        let events = automation.removeActionSet("morning")
        #expect(events.count == 2, "the trigger's update, then the action set's removal")
        #expect(automation.triggers["wake"]?.actionSets == [])
        #expect(throws: HomeError.self) { try automation.resolveActionSet("Morning", in: "home") }
        _ = automation.removeAll(ofHome: "home")
        #expect(automation.triggers.isEmpty && automation.triggerOrder.isEmpty)
    }

    @Test("automations stop a trigger that sets itself off, and keep it stopped")
    func loopStopped() {
        var automation = Automations(clock: ClockContext(timeZone: TimeZone(identifier: "GMT")!, location: nil))
        _ = automation.add(Self.timer(at: Self.start + 3600), now: Self.start)
        var verdicts: [LoopGuard.Verdict] = []
        for i in 0..<LoopGuard.limit + 1 { verdicts.append(automation.admit("wake", writtenBy: "wake", at: Self.start + Double(i) * 0.1)) }
        #expect(verdicts.last == .loop && verdicts.dropLast().allSatisfy { $0 == .run(looping: true) })
        let (stopped, events) = automation.stop(["wake"], at: Self.start + 5, because: "test")
        #expect(stopped == ["wake"] && events.count == 1 && automation.triggers["wake"]?.enabled == false)
        #expect(automation.stop(["wake"], at: Self.start + 6, because: "test").stopped.isEmpty, "stopped once")
    }

    // MARK: The bridges

    @Test("the bridges keep a device an offline bridge's list leaves out, listed, until an online bridge's list removes it")
    func awayButListed() throws {
        var bridges = Zigbee2MQTTBridges([Zigbee2MQTTSource(file: "zigbee2mqtt.yaml", baseTopic: "zigbee2mqtt")])
        let kitchen = Zigbee2MQTTBridgesTests.device("Kitchen", "0x01")
        let hall = Zigbee2MQTTBridgesTests.device("Hall", "0x02")
        let attic = Zigbee2MQTTBridgesTests.device("Attic", "0x03")
        _ = bridges.update("zigbee2mqtt") { $0.takeDevices([kitchen, hall]) }
        _ = bridges.update("zigbee2mqtt") { $0.setOnline(false) }
        let same = bridges.update("zigbee2mqtt") { $0.takeDevices([kitchen]) } ?? nil
        #expect(same == nil, "an offline bridge's list that only leaves a device out is the list as it was")
        let kept = bridges.update("zigbee2mqtt") { $0.takeDevices([kitchen, attic]) } ?? nil
        let away = try #require(kept)
        #expect(away.keptWhileOffline == ["Hall"])
        #expect(bridges["zigbee2mqtt"]?.devices?.map(\.friendlyName) == ["Kitchen", "Attic", "Hall"])

        _ = bridges.update("zigbee2mqtt") { $0.setOnline(true) }
        let left = bridges.update("zigbee2mqtt") { $0.takeDevices([kitchen, attic]) } ?? nil
        let removed = try #require(left)
        #expect(removed.keptWhileOffline.isEmpty)
        #expect(bridges["zigbee2mqtt"]?.devices?.map(\.friendlyName) == ["Kitchen", "Attic"], "an online bridge's list removes it")
    }
}
