import Automation
import Foundation
import HomeModel

/// The house's automations: action sets and triggers in the order they were added, the trigger
/// engine that decides when triggers fire, fires held back at start until their accessories are
/// here, and the loop guard. What its changes announce it returns as events for the step to send;
/// what a fire writes is the step's to do, with the accessories.
struct Automations: Sendable {
    private(set) var actionSets: [String: ActionSet] = [:]
    /// Action set ids in the order they were added.
    private(set) var actionSetOrder: [String] = []
    private(set) var engine: TriggerEngine
    /// Trigger ids in the order they were added.
    private(set) var triggerOrder: [String] = []
    /// Fires due at start, waiting until the accessories they write have appeared (or `startupSettle` passed).
    private var startupFirings: [Firing] = []
    /// Counts fires and writes over time to stop automations that set each other off.
    private var loopGuard = LoopGuard()

    static let startupSettle: TimeInterval = 30

    init(clock: ClockContext, missedGrace: TimeInterval = 0) {
        engine = TriggerEngine(clock: clock, missedGrace: missedGrace)
    }

    /// The action sets and triggers as stored, at start: what a trigger missed while the gateway
    /// was down waits to fire until its accessories are here.
    mutating func load(
        actionSets sets: [ActionSet], triggers: [Trigger], runtimes: [String: TriggerRuntime], now: Date,
        value: (CharacteristicPath) -> CharacteristicValue?
    ) {
        for set in sets {
            actionSets[set.id] = set
            actionSetOrder.append(set.id)
        }
        for trigger in triggers {
            triggerOrder.append(trigger.id)
            startupFirings += engine.load(trigger, runtime: runtimes[trigger.id], now: now, value: value)
        }
    }

    var triggers: [String: Trigger] { engine.triggers }
    var clock: ClockContext { engine.clock }
    var orderedActionSets: [ActionSet] { actionSetOrder.compactMap { actionSets[$0] } }
    var orderedTriggers: [Trigger] { triggerOrder.compactMap { engine.triggers[$0] } }

    // MARK: Action sets

    /// An action set by id, or by name in the home `scope`.
    func resolveActionSet(_ reference: String, in scope: String) throws -> ActionSet {
        if let set = actionSets[reference] { return set }
        if let id = actionSetOrder.first(where: { actionSets[$0]?.home == scope && Naming.same(actionSets[$0]!.name, reference) }) {
            return actionSets[id]!
        }
        throw HomeError.notFound("no action set '\(reference)'\(didYouMean(reference, actionSetOrder))")
    }

    /// A name for an action set of `home` (called `homeName`) that no other of that home has.
    func checkActionSetName(_ raw: String, home: String, homeName: String, except id: String?) throws -> String {
        let name = try Naming.check(raw, for: "action set").get()
        if let other = actionSets.values.first(where: { $0.home == home && $0.id != id && Naming.same($0.name, name) }) {
            throw StructureError.duplicateName(kind: "action set", other.name, scope: "in \(homeName)")
        }
        return name
    }

    func newActionSetID(for name: String) -> String { Naming.newID(for: name) { actionSets[$0] != nil } }

    /// Adds or replaces an action set.
    mutating func put(_ set: ActionSet, change: ActionSetEvent.Change) -> HomeEvent {
        if actionSets[set.id] == nil { actionSetOrder.append(set.id) }
        actionSets[set.id] = set
        return .actionSet(set.id, ActionSetEvent(change: change, name: set.name, home: set.home))
    }

    /// Removes an action set; triggers that ran it no longer do (as in HomeKit).
    mutating func removeActionSet(_ id: String) -> [HomeEvent] {
        guard let set = actionSets.removeValue(forKey: id) else { return [] }
        actionSetOrder.removeAll { $0 == id }
        return unlink(actionSet: id, outside: nil) + [.actionSet(id, ActionSetEvent(change: .removed, name: set.name, home: set.home))]
    }

    /// Triggers that run the action set no longer do, but for those of `home` (nil: all of them).
    mutating func unlink(actionSet id: String, outside home: String?) -> [HomeEvent] {
        var events: [HomeEvent] = []
        for trigger in triggerOrder where engine.triggers[trigger].map({ $0.actionSets.contains(id) && $0.home != home }) == true {
            engine.modify(trigger) { $0.actionSets.removeAll { $0 == id } }
            if let updated = engine.triggers[trigger] { events.append(Self.event(updated, .updated)) }
        }
        return events
    }

    /// A removed home takes its action sets and triggers with it.
    mutating func removeAll(ofHome home: String) -> [HomeEvent] {
        var events: [HomeEvent] = []
        for id in triggerOrder where engine.triggers[id]?.home == home { events += removeTrigger(id).map { [$0] } ?? [] }
        for id in actionSetOrder where actionSets[id]?.home == home { events += removeActionSet(id) }
        return events
    }

    /// The action set ran at `now`; as it now is.
    mutating func executed(_ id: String, at now: Date) -> ActionSet? {
        actionSets[id]?.lastExecuted = now
        return actionSets[id]
    }

    // MARK: Triggers

    /// A trigger by id, or by name in the home `scope`.
    func resolveTrigger(_ reference: String, in scope: String) throws -> Trigger {
        if let trigger = engine.triggers[reference] { return trigger }
        if let trigger = engine.triggers.values.first(where: { $0.home == scope && Naming.same($0.name, reference) }) { return trigger }
        throw HomeError.notFound("no trigger '\(reference)'\(didYouMean(reference, triggerOrder))")
    }

    /// A name for a trigger of `home` (called `homeName`) that no other of that home has.
    func checkTriggerName(_ raw: String, home: String, homeName: String, except id: String?) throws -> String {
        let name = try Naming.check(raw, for: "trigger").get()
        if let other = engine.triggers.values.first(where: { $0.home == home && $0.id != id && Naming.same($0.name, name) }) {
            throw StructureError.duplicateName(kind: "trigger", other.name, scope: "in \(homeName)")
        }
        return name
    }

    /// `action_sets`: ids or names of action sets in the trigger's home; `homeName` names a home in the refusal.
    func actionSetIDs(_ references: [String], home: String, homeName: (String) -> String) throws -> [String] {
        var ids: [String] = []
        for reference in references {
            let set = try resolveActionSet(reference, in: home)
            guard set.home == home else {
                throw HomeError.conflict("action set '\(set.name)' is in home '\(homeName(set.home))', not in this trigger's")
            }
            if !ids.contains(set.id) { ids.append(set.id) }
        }
        return ids
    }

    func newTriggerID(for name: String) -> String { Naming.newID(for: name) { engine.triggers[$0] != nil } }

    mutating func add(_ trigger: Trigger, now: Date) -> HomeEvent {
        engine.put(trigger, now: now)
        triggerOrder.append(trigger.id)
        return Self.event(trigger, .added)
    }

    /// A changed trigger; `reschedule` when what decides its fires changed.
    mutating func update(_ trigger: Trigger, reschedule: Bool, now: Date) -> HomeEvent {
        if reschedule || trigger.enabled != engine.triggers[trigger.id]?.enabled {
            engine.put(trigger, now: now)
        } else {
            engine.modify(trigger.id) { $0 = trigger }
        }
        startupFirings.removeAll { $0.trigger == trigger.id }  // a fire held back at start is the old definition's
        return Self.event(trigger, .updated)
    }

    /// Enables or disables a trigger; the event, or nil when it already was.
    mutating func setEnabled(_ id: String, _ enabled: Bool, now: Date) -> HomeEvent? {
        guard let trigger = engine.triggers[id], trigger.enabled != enabled else { return nil }
        engine.setEnabled(id, enabled, now: now)
        if !enabled { startupFirings.removeAll { $0.trigger == id } }
        return Self.event(trigger, enabled ? .enabled : .disabled)
    }

    mutating func removeTrigger(_ id: String) -> HomeEvent? {
        guard let trigger = engine.remove(id) else { return nil }
        loopGuard.forget([id])  // a trigger added again under this id starts counting from nothing
        triggerOrder.removeAll { $0 == id }
        startupFirings.removeAll { $0.trigger == id }
        return Self.event(trigger, .removed)
    }

    func status(_ trigger: Trigger, next: Date?) -> TriggerStatus {
        let runtime = engine.runtime[trigger.id]
        return TriggerStatus(trigger: trigger, lastFired: runtime?.lastFired, nextFire: next, held: runtime?.held ?? [:])
    }

    func status(_ trigger: Trigger) -> TriggerStatus { status(trigger, next: engine.nextFires(for: trigger.id)) }

    static func event(_ trigger: Trigger, _ change: TriggerEvent.Change) -> HomeEvent {
        .trigger(trigger.id, TriggerEvent(change: change, name: trigger.name, home: trigger.home))
    }

    // MARK: Fires

    /// A characteristic changed: the fires it decides.
    mutating func changed(
        _ path: CharacteristicPath, to value: CharacteristicValue, from previous: CharacteristicValue?, now: Date,
        value lookup: (CharacteristicPath) -> CharacteristicValue?
    ) -> [Firing] {
        engine.changed(path, to: value, from: previous, now: now, value: lookup)
    }

    /// Timers, sun events and deadlines due now, after the fires held back at start that may go:
    /// all of them once `settled`, else those whose accessories are `present`.
    mutating func due(
        now: Date, settled: Bool, present: (Firing) -> Bool, value: (CharacteristicPath) -> CharacteristicValue?
    ) -> [Firing] {
        var firings = engine.due(now: now, value: value)
        if !startupFirings.isEmpty {
            let ready = startupFirings.filter { settled || present($0) }
            startupFirings.removeAll { ready.contains($0) }
            firings = ready + firings
        }
        return firings
    }

    /// Whether a fire of `trigger`, set off by a report of `writer`'s write, runs (see `LoopGuard`).
    mutating func admit(_ trigger: String, writtenBy writer: String?, at now: Date) -> LoopGuard.Verdict {
        loopGuard.fire(trigger, writtenBy: writer, at: now)
    }

    /// Counts a looping fire's write; the triggers that wrote `path` too often, or none.
    mutating func looped(_ path: String, writtenBy trigger: String, at now: Date) -> Set<String> {
        loopGuard.write(path, by: trigger, at: now)
    }

    /// Disables triggers caught in a loop (stored disabled, so a restart does not start it again)
    /// and drops their fires held back at start; those stopped, with an event each.
    mutating func stop(_ ids: Set<String>, at now: Date, because reason: String) -> (stopped: [String], events: [HomeEvent]) {
        let stopping = ids.filter { engine.triggers[$0]?.enabled == true }.sorted()
        loopGuard.forget(ids)
        var events: [HomeEvent] = []
        for id in stopping {
            engine.setEnabled(id, false, now: now)
            startupFirings.removeAll { $0.trigger == id }
            let trigger = engine.triggers[id]!
            events.append(.trigger(id, TriggerEvent(change: .disabled, name: trigger.name, home: trigger.home, loop: (reason, stopping))))
        }
        return (stopping, events)
    }

    /// When the next timer, sun event or deadline is due.
    mutating func nextDue() -> Date? { engine.nextDue() }

    /// What to store of the engine: runtimes that changed, triggers that only fired.
    mutating func drainDirty() -> (changed: Set<String>, fired: Set<String>) { engine.drainDirty() }
}
