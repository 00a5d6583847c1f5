import Automation
public import Foundation
import HomeModel
import JSON

extension HomeCore {
    /// Triggers: list, add, update, enable, remove.
    mutating func runTriggers(_ command: TriggerCommand) throws -> HomeResult {
        switch command {
        case .list(let reference, let page):
            let home = try structure.resolveHome(reference)
            let all = triggerOrder.compactMap { engine.triggers[$0] }.filter { $0.home == home.id }
            let next = engine.nextFires()
            return .triggers(home: home.id, total: all.count, page.apply(all).map { status($0, next: next[$0.id]) })
        case .add(let draft):
            let home = try structure.resolveHome(draft.home)
            let name = try checkTriggerName(draft.name, home: home.id, except: nil)
            try checkTrigger(draft.kind, draft.conditions, home: home.id)
            try checkComing(draft.kind)
            let trigger = Trigger(
                id: Naming.newID(for: name) { engine.triggers[$0] != nil }, name: name, home: home.id,
                enabled: draft.enabled, actionSets: try actionSetIDs(draft.actionSets, home: home.id),
                kind: draft.kind, conditions: draft.conditions, executeOnce: draft.executeOnce)
            engine.put(trigger, now: now)
            triggerOrder.append(trigger.id)
            triggerEvent(trigger, .added)
            return .trigger(status(trigger, next: engine.nextFires(for: trigger.id)))
        case .update(let reference, let home, let changes):
            var trigger = try resolveTrigger(reference, home: try homeScope(home))
            if let name = changes.name { trigger.name = try checkTriggerName(name, home: trigger.home, except: trigger.id) }
            if let sets = changes.actionSets { trigger.actionSets = try actionSetIDs(sets, home: trigger.home) }
            var reschedule = false
            if let kind = changes.kind {
                trigger.kind = kind
                try checkComing(kind)
                reschedule = true
            }
            if let conditions = changes.conditions {
                trigger.conditions = conditions
                reschedule = true
            }
            if let once = changes.executeOnce {
                trigger.executeOnce = once
                reschedule = true
            }
            try checkTrigger(trigger.kind, trigger.conditions, home: trigger.home)
            trigger.enabled = changes.enabled ?? trigger.enabled
            if reschedule || trigger.enabled != engine.triggers[trigger.id]?.enabled {
                engine.put(trigger, now: now)
            } else {
                engine.modify(trigger.id) { $0 = trigger }
            }
            startupFirings.removeAll { $0.trigger == trigger.id }  // a fire held back at start is the old definition's
            triggerEvent(trigger, .updated)
            return .trigger(status(trigger, next: engine.nextFires(for: trigger.id)))
        case .enable(let reference, let home, let enabled):
            let trigger = try resolveTrigger(reference, home: try homeScope(home))
            if enabled != trigger.enabled {
                engine.setEnabled(trigger.id, enabled, now: now)
                if !enabled { startupFirings.removeAll { $0.trigger == trigger.id } }
                triggerEvent(trigger, enabled ? .enabled : .disabled)
            }
            return .trigger(status(engine.triggers[trigger.id]!, next: engine.nextFires(for: trigger.id)))
        case .remove(let reference, let home):
            let trigger = try resolveTrigger(reference, home: try homeScope(home))
            removeTrigger(trigger.id)
            return .removed(trigger.id)
        }
    }

    mutating func triggerEvent(_ trigger: Trigger, _ change: TriggerEvent.Change) {
        emit(.event(.trigger(trigger.id, TriggerEvent(change: change, name: trigger.name, home: trigger.home))))
    }

    /// The time zone a trigger's local times are in when it names none.
    public var timeZone: TimeZone { engine.clock.timeZone }

    func resolveTrigger(_ reference: String, home: String?) throws -> Trigger {
        if let trigger = engine.triggers[reference] { return trigger }
        let scope = home ?? structure.primaryHome
        if let trigger = engine.triggers.values.first(where: { $0.home == scope && Naming.same($0.name, reference) }) { return trigger }
        throw HomeError.notFound("no trigger '\(reference)'\(didYouMean(reference, triggerOrder))")
    }

    func checkTriggerName(_ raw: String, home: String, except id: String?) throws -> String {
        let name = try Naming.check(raw, for: "trigger").get()
        if let other = engine.triggers.values.first(where: { $0.home == home && $0.id != id && Naming.same($0.name, name) }) {
            throw StructureError.duplicateName(kind: "trigger", other.name, scope: "in \(structure.home(id: home)?.name ?? home)")
        }
        return name
    }

    /// `action_sets`: ids or names of action sets in the trigger's home.
    func actionSetIDs(_ references: [String], home: String) throws -> [String] {
        var ids: [String] = []
        for reference in references {
            let set = try resolveActionSet(reference, home: home)
            guard set.home == home else {
                throw HomeError.conflict(
                    "action set '\(set.name)' is in home '\(structure.home(id: set.home)?.name ?? set.home)', not in this trigger's")
            }
            if !ids.contains(set.id) { ids.append(set.id) }
        }
        return ids
    }

    /// A new or changed timer without a recurrence must still have its time to come.
    func checkComing(_ kind: Trigger.Kind) throws {
        if case .timer(let schedule) = kind, schedule.recurrence == nil, schedule.next(after: now) == nil {
            throw HomeError.invalid(
                "timer.fire_date: that time has passed; a timer without a recurrence needs a time to come", field: "timer.fire_date")
        }
    }

    func checkTrigger(_ kind: Trigger.Kind, _ conditions: Condition?, home: String) throws {
        try Trigger.check(kind, conditions, against: characteristicLookup(home: home))
        if engine.clock.location == nil, Trigger.usesSun(kind, conditions) {
            throw HomeError.conflict(
                "sunrise and sunset need the house's location: set location.latitude and location.longitude in homegate.yaml")
        }
    }

    /// Disables triggers caught in a loop (stored disabled, so a restart does not start it again),
    /// drops their queued fires, says so once in the log and once per trigger as an event.
    mutating func stopLoop(_ ids: Set<String>, because reason: String) {
        let stopping = ids.filter { engine.triggers[$0]?.enabled == true }.sorted()
        loopGuard.forget(ids)
        guard !stopping.isEmpty else { return }
        for id in stopping {
            engine.setEnabled(id, false, now: now)
            startupFirings.removeAll { $0.trigger == id }
            step.firingQueue.removeAll { $0.firing.trigger == id }
            let trigger = engine.triggers[id]!
            emit(.event(.trigger(id, TriggerEvent(change: .disabled, name: trigger.name, home: trigger.home, loop: (reason, stopping)))))
        }
        notice(
            .warning, .automation,
            "automation loop stopped: \(reason); disabled \(stopping.joined(separator: ", ")). "
                + "Fix the triggers so they do not undo each other, then enable them again with trigger/enable")
    }

    mutating func removeTrigger(_ id: String) {
        guard let trigger = engine.remove(id) else { return }
        loopGuard.forget([id])  // a trigger added again under this id starts counting from nothing
        triggerOrder.removeAll { $0 == id }
        startupFirings.removeAll { $0.trigger == id }
        triggerEvent(trigger, .removed)
    }

    func status(_ trigger: Trigger, next: Date?) -> TriggerStatus {
        let runtime = engine.runtime[trigger.id]
        return TriggerStatus(trigger: trigger, lastFired: runtime?.lastFired, nextFire: next, held: runtime?.held ?? [:])
    }

    // MARK: Running what fired

    /// Timers, sun events and deadlines due now; their writes wait until the fire is stored, so a
    /// crash can lose a fire but never repeat one. Fires due at start wait for their accessories.
    mutating func runDueTriggers() {
        var firings = engine.due(now: now, value: currentValue)
        if !startupFirings.isEmpty {
            let settled = now.timeIntervalSince(startedAt) >= Self.startupSettle
            let ready = startupFirings.filter { settled || accessoriesPresent(for: $0) }
            startupFirings.removeAll { ready.contains($0) }
            firings = ready + firings
        }
        guard !firings.isEmpty else { return }
        afterStoring { $0.run(firings.map { QueuedFiring($0) }) }
    }

    private func accessoriesPresent(for firing: Firing) -> Bool {
        firing.actionSets.allSatisfy { id in
            guard let set = actionSets[id] else { return true }
            return set.actions.allSatisfy { entries[$0.path.accessory] != nil } && set.recall.map { entries[$0.accessory] != nil } ?? true
        }
    }

    /// Characteristic events decided during the batch run at its end; a chain of triggers that
    /// set what sets off other triggers stops after a few rounds.
    mutating func runQueuedFirings() {
        var rounds = 0
        while !step.firingQueue.isEmpty {
            rounds += 1
            guard rounds <= 8 else {
                notice(
                    .warning, .automation,
                    "triggers set each other off more than 8 times in a row; stopped: \(Set(step.firingQueue.map(\.firing.trigger)).sorted().joined(separator: ", "))"
                )
                step.firingQueue = []
                return
            }
            let firings = step.firingQueue
            step.firingQueue = []
            run(firings.filter { !$0.firing.disabledItself })
            // An execute-once trigger's writes wait until it is stored as disabled: a crash cannot make it fire again.
            let once = firings.filter(\.firing.disabledItself)
            if !once.isEmpty {
                afterStoring { $0.run(once) }
            }
        }
    }

    mutating func run(_ firings: [QueuedFiring]) {
        for queued in firings {
            let firing = queued.firing
            // A trigger stopped as a loop earlier in this batch does not run its queued fires.
            guard let trigger = engine.triggers[firing.trigger], trigger.enabled || firing.disabledItself else { continue }
            let looping: Bool
            switch loopGuard.fire(trigger.id, writtenBy: queued.writer, at: now) {
            case .loop:
                stopLoop(
                    [trigger.id],
                    because:
                        "'\(trigger.name)' set itself off through its own writes more than \(LoopGuard.limit) times within \(Int(LoopGuard.window)) s"
                )
                continue
            case .skip(let first):
                counters.triggerFiresSkipped += 1
                if first { warnBusy(trigger) }
                continue
            case .run(let isLooping):
                looping = isLooping
            }
            let runs = execute(firing.actionSets, by: .trigger(trigger.id))
            notice(
                .info, .automation,
                "trigger '\(trigger.name)' fired: ran "
                    + runs.map { run in
                        let name = actionSets[run.actionSet]?.name ?? run.actionSet
                        return run.failures == 0 ? "'\(name)'" : "'\(name)' (\(run.failures) of \(run.steps.count) writes failed)"
                    }.joined(separator: ", "))
            if looping {
                for path in Set(firing.actionSets.flatMap { actionSets[$0]?.actions.map(\.path.description) ?? [] }).sorted() {
                    let writers = loopGuard.write(path, by: trigger.id, at: now)
                    if !writers.isEmpty {
                        stopLoop(
                            writers,
                            because:
                                "\(path) was written by automations setting each other off more than \(LoopGuard.limit) times within \(Int(LoopGuard.window)) s"
                        )
                    }
                }
            }
            counters.triggerFires += 1
            emit(.event(.trigger(trigger.id, TriggerEvent(change: .fired, name: trigger.name, home: trigger.home, fired: (firing, runs)))))
        }
    }

    /// A busy trigger is not a loop: its fires past the limit are skipped, once said per episode.
    private mutating func warnBusy(_ trigger: Trigger) {
        notice(
            .warning, .automation,
            "trigger '\(trigger.name)' fired more than \(LoopGuard.limit) times within \(Int(LoopGuard.window)) s, not through its own "
                + "writes: its fires past that are skipped while it stays this busy (homegate_trigger_fires_skipped_total counts them); "
                + "it stays enabled")
    }
}
