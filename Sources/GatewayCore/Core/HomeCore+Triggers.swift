import Automation
import Foundation
import HomeModel
import JSON

extension HomeCore {
    /// Triggers: list, add, update, enable, remove.
    mutating func runTriggers(_ command: TriggerCommand) throws -> HomeResult {
        switch command {
        case .list(let reference, let page):
            let home = try structure.resolveHome(reference)
            let all = automation.orderedTriggers.filter { $0.home == home.id }
            let next = automation.engine.nextFires()
            return .triggers(home: home.id, total: all.count, page.apply(all).map { automation.status($0, next: next[$0.id]) })
        case .add(let draft):
            let home = try structure.resolveHome(draft.home)
            let name = try checkTriggerName(draft.name, home: home.id, except: nil)
            try checkTrigger(draft.kind, draft.conditions, home: home.id)
            try checkComing(draft.kind)
            let trigger = Trigger(
                id: automation.newTriggerID(for: name), name: name, home: home.id,
                enabled: draft.enabled, actionSets: try actionSetIDs(draft.actionSets, home: home.id),
                kind: draft.kind, conditions: draft.conditions, executeOnce: draft.executeOnce)
            emit(.event(automation.add(trigger, now: now)))
            return .trigger(automation.status(trigger))
        case .update(let reference, let home, let changes):
            var trigger = try resolveTrigger(reference, home: try layout.homeScope(home))
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
            emit(.event(automation.update(trigger, reschedule: reschedule, now: now)))
            return .trigger(automation.status(trigger))
        case .enable(let reference, let home, let enabled):
            let trigger = try resolveTrigger(reference, home: try layout.homeScope(home))
            if let event = automation.setEnabled(trigger.id, enabled, now: now) { emit(.event(event)) }
            return .trigger(automation.status(automation.triggers[trigger.id]!))
        case .remove(let reference, let home):
            let trigger = try resolveTrigger(reference, home: try layout.homeScope(home))
            if let event = automation.removeTrigger(trigger.id) { emit(.event(event)) }
            return .removed(trigger.id)
        }
    }

    func resolveTrigger(_ reference: String, home: String?) throws -> Trigger {
        try automation.resolveTrigger(reference, in: home ?? structure.primaryHome)
    }

    func checkTriggerName(_ raw: String, home: String, except id: String?) throws -> String {
        try automation.checkTriggerName(raw, home: home, homeName: structure.home(id: home)?.name ?? home, except: id)
    }

    /// `action_sets`: ids or names of action sets in the trigger's home.
    func actionSetIDs(_ references: [String], home: String) throws -> [String] {
        let structure = structure
        return try automation.actionSetIDs(references, home: home) { structure.home(id: $0)?.name ?? $0 }
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
        if automation.clock.location == nil, Trigger.usesSun(kind, conditions) {
            throw HomeError.conflict(
                "sunrise and sunset need the house's location: set location.latitude and location.longitude in homegate.yaml")
        }
    }

    /// Disables triggers caught in a loop (stored disabled, so a restart does not start it again),
    /// drops their queued fires, says so once in the log and once per trigger as an event.
    mutating func stopLoop(_ ids: Set<String>, because reason: String) {
        let (stopped, events) = automation.stop(ids, at: now, because: reason)
        guard !stopped.isEmpty else { return }
        step.firingQueue.removeAll { stopped.contains($0.firing.trigger) }
        for event in events { emit(.event(event)) }
        notice(
            .warning, .automation,
            "automation loop stopped: \(reason); disabled \(stopped.joined(separator: ", ")). "
                + "Fix the triggers so they do not undo each other, then enable them again with trigger/enable")
    }

    // MARK: Running what fired

    /// Timers, sun events and deadlines due now; their writes wait until the fire is stored, so a
    /// crash can lose a fire but never repeat one. Fires due at start wait for their accessories.
    mutating func runDueTriggers() {
        let settled = now.timeIntervalSince(startedAt) >= Automations.startupSettle
        let (table, actionSets) = (table, automation.actionSets)
        let firings = automation.due(
            now: now, settled: settled, present: { Self.accessoriesPresent(for: $0, actionSets, table) }, value: table.currentValue)
        guard !firings.isEmpty else { return }
        afterStoring { $0.run(firings.map { QueuedFiring($0) }) }
    }

    private static func accessoriesPresent(for firing: Firing, _ actionSets: [String: ActionSet], _ table: AccessoryTable) -> Bool {
        firing.actionSets.allSatisfy { id in
            guard let set = actionSets[id] else { return true }
            return set.actions.allSatisfy { table[$0.path.accessory] != nil } && set.recall.map { table[$0.accessory] != nil } ?? true
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
            guard let trigger = automation.triggers[firing.trigger], trigger.enabled || firing.disabledItself else { continue }
            let looping: Bool
            switch automation.admit(trigger.id, writtenBy: queued.writer, at: now) {
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
                        let name = automation.actionSets[run.actionSet]?.name ?? run.actionSet
                        return run.failures == 0 ? "'\(name)'" : "'\(name)' (\(run.failures) of \(run.steps.count) writes failed)"
                    }.joined(separator: ", "))
            if looping {
                for path in Set(firing.actionSets.flatMap { automation.actionSets[$0]?.actions.map(\.path.description) ?? [] }).sorted() {
                    let writers = automation.looped(path, writtenBy: trigger.id, at: now)
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
