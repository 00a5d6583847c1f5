import Automation
import Foundation
import Gateway
import HomeModel
import JSON
import Persistence
import Testing

/// The loop guard in the core alone: a loop is a trigger set off, through a device's report, by
/// its own writes (or those of triggers it set off); a trigger merely fired often is busy.
@Suite("A loop through a device is stopped; a busy trigger is rate-limited and stays enabled")
struct LoopGuardCoreTests {
    static let bulbOn = TestHome.path("bulb/lightbulb/on")
    static let press = TestHome.path("button/stateless_programmable_switch/programmable_switch_event")

    @Test("'on → run off' and 'off → run on' with the bulb echoing each write: stopped, disabled, stored, said once")
    func loopStopped() throws {
        var home = try TestHome()
        try home.addSet("Bulb Off", Self.bulbOn, .bool(false))
        try home.addSet("Bulb On", Self.bulbOn, .bool(true))
        try home.addTrigger("On Means Off", "bulb_off", on: Self.bulbOn, .bool(true))
        try home.addTrigger("Off Means On", "bulb_on", on: Self.bulbOn, .bool(false))
        _ = home.core.drainNotices()

        home.device("zigbee2mqtt/bulb", ["state": "ON"])
        var fired = home.fired
        var stopped = home.loopStops
        // The bulb reports what it was told, a moment later, as a real one does.
        for _ in 0..<200 {
            let sets = home.sets.filter { $0.topic == "zigbee2mqtt/bulb/set" }
            guard !sets.isEmpty else { break }
            home.now += 0.05
            for set in sets {
                home.device("zigbee2mqtt/bulb", set.payload)
                fired += home.fired
                stopped += home.loopStops
            }
        }

        #expect(home.sets.isEmpty, "the loop is over")
        let disabled = try home.triggers().filter { !$0.trigger.enabled }.map(\.trigger.id)
        #expect(!disabled.isEmpty && Set(disabled).isSubset(of: ["on_means_off", "off_means_on"]), "\(disabled)")
        #expect(stopped.map(\.id).sorted() == disabled.sorted(), "one disabled event per stopped trigger")
        #expect(stopped.allSatisfy { $0.detail.contains("more than 30 times within 10 s") }, "\(stopped)")
        #expect(fired.count <= 2 * 31 + 2, "\(fired.count) fires")
        for id in disabled { #expect(home.stored.triggers[id]?.enabled == false, "\(id) is stored disabled") }
        let lines = home.core.drainNotices().map(\.message)
        #expect(lines.filter { $0.contains("automation loop stopped") }.count == 1, "\(lines)")
        #expect(home.core.counters.triggerFiresSkipped == 0, "a loop is stopped, not rate-limited")
    }

    @Test("a button pressed 100 times in 5 s: 30 fires run, 70 skipped and counted, one warning, never disabled; later it fires again")
    func busyTriggerLimited() throws {
        var home = try TestHome()
        try home.addSet("Light on", Self.bulbOn, .bool(true))
        try home.addTrigger("Press", "light_on", on: Self.press, .int(0))
        _ = home.core.drainNotices()

        var fired: [String] = []
        for _ in 0..<100 {
            home.now += 0.05
            home.device("zigbee2mqtt/button", ["action": "single"])
            fired += home.fired
            #expect(home.loopStops.isEmpty)
        }
        #expect(fired.count == 30)
        #expect(home.core.counters.triggerFiresSkipped == 70)
        #expect(home.core.counters.triggerFires == 30)
        let warnings = home.core.drainNotices().filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 1 && warnings[0].contains("skipped"), "\(warnings)")
        #expect(try home.triggers().allSatisfy(\.trigger.enabled))
        #expect(home.stored.triggers["press"]?.enabled != false, "nothing stored disabled")

        // Held down on: the window slides, so a fire runs again as the oldest leave it, and the
        // episode goes on without another warning.
        home.now += 5.075  // the first fire is now just over 10 s old, the second not
        home.device("zigbee2mqtt/button", ["action": "single"])
        #expect(home.fired == ["press"])
        home.device("zigbee2mqtt/button", ["action": "single"])
        #expect(home.fired.isEmpty)
        #expect(home.core.drainNotices().filter { $0.level == .warning }.isEmpty)

        // Quiet for a while: the next burst is a new episode, said once again.
        home.now += 60
        for _ in 0..<40 {
            home.now += 0.05
            home.device("zigbee2mqtt/button", ["action": "single"])
        }
        #expect(home.core.counters.triggerFiresSkipped == 71 + 10)
        #expect(home.core.drainNotices().filter { $0.level == .warning }.count == 1)
        #expect(try home.triggers().allSatisfy(\.trigger.enabled))
    }

    @Test("a trigger set off by another trigger's writes, echoed by the bulb, is a chain, not a loop: none is disabled")
    func chainIsNotALoop() throws {
        var home = try TestHome()
        try home.addSet("Light on", Self.bulbOn, .bool(true))
        try home.addSet("Light off", Self.bulbOn, .bool(false))
        try home.addSet("Plug on", TestHome.path("power_plug/outlet/on"), .bool(true))
        try home.addTrigger("Press", "light_on", on: Self.press, .int(0))
        try home.addTrigger("Double", "light_off", on: Self.press, .int(1))
        try home.addTrigger("Plug follows", "plug_on", on: Self.bulbOn, .bool(true))
        _ = home.core.drainNotices()

        var fired: [String] = []
        for round in 0..<100 {
            home.now += 0.05
            home.device("zigbee2mqtt/button", ["action": round.isMultiple(of: 2) ? "single" : "double"])
            fired += home.fired
            for set in home.sets where set.topic == "zigbee2mqtt/bulb/set" {
                home.device("zigbee2mqtt/bulb", set.payload)
                fired += home.fired
                #expect(home.loopStops.isEmpty)
            }
        }
        #expect(try home.triggers().allSatisfy(\.trigger.enabled))
        #expect(fired.filter { $0 == "plug_follows" }.count == fired.filter { $0 == "press" }.count, "it follows every light on")
        #expect(fired.filter { $0 == "press" }.count == 30 && fired.filter { $0 == "double" }.count == 30)
        #expect(home.core.counters.triggerFiresSkipped == 40)
        #expect(home.core.drainNotices().filter { $0.message.contains("automation loop stopped") }.isEmpty)
    }
}

extension TestHome {
    mutating func addSet(_ name: String, _ path: CharacteristicPath, _ value: CharacteristicValue) throws {
        _ = try ok(.actionSets(.add(name: name, home: nil, actions: [Action(path, value)])))
    }

    mutating func addTrigger(_ name: String, _ set: String, on path: CharacteristicPath, _ value: CharacteristicValue) throws {
        _ = try ok(
            .triggers(.add(TriggerDraft(name: name, actionSets: [set], kind: .events([.characteristic(path, .value(value), held: nil)])))))
    }

    mutating func triggers() throws -> [TriggerStatus] {
        guard case .triggers(_, _, let triggers) = try ok(.triggers(.list(home: nil, page: .all))) else { return [] }
        return triggers
    }

    /// The triggers that fired in the last step.
    var fired: [String] {
        events.compactMap { if case .trigger(let id, let event) = $0, event.change == .fired { id } else { nil } }
    }

    /// The triggers the last step stopped as a loop, with why.
    var loopStops: [(id: String, detail: String)] {
        events.compactMap {
            guard case .trigger(let id, let event) = $0, event.change == .disabled, let loop = event.loop else { return nil }
            return (id, loop.detail)
        }
    }
}
