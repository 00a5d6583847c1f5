import Automation
import Foundation
import HomeModel
import JSON
import Persistence

extension GatewayCore {
    static let triggerCommands: [String: HomeCommand] = [
        "trigger/list": HomeCommand(changes: false) { core, r in
            try r.only(["home", "offset", "limit"])
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            let all = core.triggerOrder.compactMap { core.engine.triggers[$0] }.filter { $0.home == home.id }
            let page = try r.page(of: all)
            let next = core.engine.nextFires()
            return ["home": .string(home.id), "total": .integer(all.count), "triggers": .array(page.map { core.triggerJSON($0, next: next[$0.id]) })]
        },
        "trigger/add": HomeCommand(changes: true) { core, r in
            try r.only(["name", "home", "action_sets", "enabled"] + Trigger.definitionKeys)
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            let name = try core.checkTriggerName(try r.string("name"), home: home.id, except: nil)
            let fields = r.body.objectValue ?? [:]
            let kind = try Trigger.kind(from: fields, defaultTimeZone: core.engine.clock.timeZone)
            let conditions = try Trigger.conditions(from: fields["conditions"])
            try core.checkTrigger(kind, conditions, home: home.id)
            try core.checkComing(kind)
            let trigger = Trigger(id: Naming.newID(for: name) { core.engine.triggers[$0] != nil }, name: name, home: home.id,
                                  enabled: try r.bool("enabled", default: true), actionSets: try core.actionSetIDs(r, home: home.id) ?? [],
                                  kind: kind, conditions: conditions, executeOnce: try r.bool("execute_once", default: false))
            core.engine.put(trigger, now: core.now)
            core.triggerOrder.append(trigger.id)
            core.store.triggers[trigger.id] = trigger
            core.automationEvent("trigger", trigger.id, "added", ["name": .string(trigger.name), "home": .string(trigger.home)])
            return core.triggerJSON(trigger, next: core.engine.nextFires(for: trigger.id))
        },
        "trigger/update": HomeCommand(changes: true) { core, r in
            try r.only(["trigger", "home", "name", "action_sets", "enabled"] + Trigger.definitionKeys)
            var trigger = try core.resolveTrigger(try r.string("trigger"), home: try core.homeScope(r))
            let fields = r.body.objectValue ?? [:]
            if let name = try r.optionalString("name") { trigger.name = try core.checkTriggerName(name, home: trigger.home, except: trigger.id) }
            if let sets = try core.actionSetIDs(r, home: trigger.home) { trigger.actionSets = sets }
            var reschedule = false
            if fields["timer"] != nil || fields["events"] != nil {
                trigger.kind = try Trigger.kind(from: fields, defaultTimeZone: core.engine.clock.timeZone)
                try core.checkComing(trigger.kind)
                reschedule = true
            }
            if fields.keys.contains("conditions") {
                trigger.conditions = try Trigger.conditions(from: fields["conditions"])
                reschedule = true
            }
            if fields["execute_once"] != nil {
                trigger.executeOnce = try r.bool("execute_once", default: false)
                reschedule = true
            }
            try core.checkTrigger(trigger.kind, trigger.conditions, home: trigger.home)
            trigger.enabled = try r.bool("enabled", default: trigger.enabled)
            if reschedule || trigger.enabled != core.engine.triggers[trigger.id]?.enabled {
                core.engine.put(trigger, now: core.now)
            } else {
                core.engine.modify(trigger.id) { $0 = trigger }
            }
            core.store.triggers[trigger.id] = trigger
            core.startupFirings.removeAll { $0.trigger == trigger.id }  // a fire held back at start is the old definition's
            core.automationEvent("trigger", trigger.id, "updated", ["name": .string(trigger.name), "home": .string(trigger.home)])
            return core.triggerJSON(trigger, next: core.engine.nextFires(for: trigger.id))
        },
        "trigger/enable": HomeCommand(changes: true) { core, r in
            try r.only(["trigger", "home", "enabled"])
            let trigger = try core.resolveTrigger(try r.string("trigger"), home: try core.homeScope(r))
            let enabled = try r.bool("enabled", default: true)
            if enabled != trigger.enabled {
                core.engine.setEnabled(trigger.id, enabled, now: core.now)
                core.store.triggers[trigger.id] = core.engine.triggers[trigger.id]
                if !enabled { core.startupFirings.removeAll { $0.trigger == trigger.id } }
                core.automationEvent("trigger", trigger.id, enabled ? "enabled" : "disabled", ["name": .string(trigger.name), "home": .string(trigger.home)])
            }
            return core.triggerJSON(core.engine.triggers[trigger.id]!, next: core.engine.nextFires(for: trigger.id))
        },
        "trigger/remove": HomeCommand(changes: true) { core, r in
            try r.only(["trigger", "home"])
            let trigger = try core.resolveTrigger(try r.string("trigger"), home: try core.homeScope(r))
            core.removeTrigger(trigger.id)
            return ["removed": .string(trigger.id)]
        },
    ]

    func resolveTrigger(_ reference: String, home: String?) throws -> Trigger {
        if let trigger = engine.triggers[reference] { return trigger }
        let scope = home ?? structure.primaryHome
        if let trigger = engine.triggers.values.first(where: { $0.home == scope && Naming.same($0.name, reference) }) { return trigger }
        throw RequestError("no trigger '\(reference)'\(didYouMean(reference, triggerOrder))")
    }

    func checkTriggerName(_ raw: String, home: String, except id: String?) throws -> String {
        let name = try Naming.check(raw, for: "trigger").get()
        if let other = engine.triggers.values.first(where: { $0.home == home && $0.id != id && Naming.same($0.name, name) }) {
            throw StructureError.duplicateName(kind: "trigger", other.name, scope: "in \(structure.home(id: home)?.name ?? home)")
        }
        return name
    }

    /// `action_sets`: ids or names of action sets in the trigger's home.
    func actionSetIDs(_ r: Request, home: String) throws -> [String]? {
        guard let references = try r.strings("action_sets") else { return nil }
        var ids: [String] = []
        for reference in references {
            let set = try resolveActionSet(reference, home: home)
            guard set.home == home else {
                throw RequestError("action set '\(set.name)' is in home '\(structure.home(id: set.home)?.name ?? set.home)', not in this trigger's")
            }
            if !ids.contains(set.id) { ids.append(set.id) }
        }
        return ids
    }

    /// A new or changed timer without a recurrence must still have its time to come.
    func checkComing(_ kind: Trigger.Kind) throws {
        if case .timer(let schedule) = kind, schedule.recurrence == nil, schedule.next(after: now) == nil {
            throw RequestError("timer.fire_date: that time has passed; a timer without a recurrence needs a time to come")
        }
    }

    func checkTrigger(_ kind: Trigger.Kind, _ conditions: Condition?, home: String) throws {
        try Trigger.check(kind, conditions, against: characteristicLookup(home: home))
        if engine.clock.location == nil, Trigger.usesSun(kind, conditions) {
            throw RequestError("sunrise and sunset need the house's location: set location.latitude and location.longitude in homegate.yaml")
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
            store.triggers[id] = engine.triggers[id]
            startupFirings.removeAll { $0.trigger == id }
            firingQueue.removeAll { $0.trigger == id }
            let trigger = engine.triggers[id]!
            automationEvent("trigger", id, "disabled", ["name": .string(trigger.name), "home": .string(trigger.home), "reason": "loop",
                                                        "detail": .string(reason), "loop": .array(stopping.map { .string($0) })])
        }
        notice(.warning, .automation, "automation loop stopped: \(reason); disabled \(stopping.joined(separator: ", ")). "
            + "Fix the triggers so they do not undo each other, then enable them again with trigger/enable")
    }

    mutating func removeTrigger(_ id: String) {
        guard let trigger = engine.remove(id) else { return }
        triggerOrder.removeAll { $0 == id }
        startupFirings.removeAll { $0.trigger == id }
        store.triggers[id] = nil
        automationEvent("trigger", id, "removed", ["name": .string(trigger.name), "home": .string(trigger.home)])
    }

    func triggerJSON(_ trigger: Trigger, next: Date?) -> JSONValue {
        var fields = trigger.json
        let runtime = engine.runtime[trigger.id]
        fields["last_fired"] = runtime?.lastFired.map { .string(instantText($0)) } ?? .null
        fields["next_fire"] = next.map { .string(instantText($0)) } ?? .null
        if let held = runtime?.held, !held.isEmpty {
            fields["pending"] = .array(held.sorted { $0.key < $1.key }.map { ["event": .integer($0.key), "deadline": .string(instantText($0.value))] })
        }
        return .object(fields)
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
        deferring = true
        run(firings)
        deferring = false
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
        while !firingQueue.isEmpty {
            rounds += 1
            guard rounds <= 8 else {
                notice(.warning, .automation, "triggers set each other off more than 8 times in a row; stopped: \(Set(firingQueue.map(\.trigger)).sorted().joined(separator: ", "))")
                firingQueue = []
                return
            }
            let firings = firingQueue
            firingQueue = []
            run(firings.filter { !$0.disabledItself })
            // An execute-once trigger's writes wait until it is stored as disabled: a crash cannot make it fire again.
            let once = firings.filter(\.disabledItself)
            if !once.isEmpty {
                let was = deferring
                deferring = true
                run(once)
                deferring = was
            }
        }
    }

    mutating func run(_ firings: [Firing]) {
        for firing in firings {
            // A trigger stopped as a loop earlier in this batch does not run its queued fires.
            guard let trigger = engine.triggers[firing.trigger], trigger.enabled || firing.disabledItself else { continue }
            if loopGuard.fire(trigger.id, at: now) {
                stopLoop([trigger.id], because: "'\(trigger.name)' fired more than \(LoopGuard.limit) times within \(Int(LoopGuard.window)) s")
                continue
            }
            let outcomes = execute(firing.actionSets, by: .trigger(trigger.id))
            notice(.info, .automation, "trigger '\(trigger.name)' fired: ran " + outcomes.map { outcome in
                let name = actionSets[outcome.actionSet]?.name ?? outcome.actionSet
                return outcome.failures == 0 ? "'\(name)'" : "'\(name)' (\(outcome.failures) of \(outcome.results.count) writes failed)"
            }.joined(separator: ", "))
            for path in Set(firing.actionSets.flatMap { actionSets[$0]?.actions.map(\.path.description) ?? [] }).sorted() {
                let writers = loopGuard.write(path, by: trigger.id, at: now)
                if !writers.isEmpty {
                    stopLoop(writers, because: "\(path) was written by automations more than \(LoopGuard.limit) times within \(Int(LoopGuard.window)) s")
                }
            }
            var fields: [String: JSONValue] = ["name": .string(trigger.name), "home": .string(trigger.home), "cause": firing.causeJSON,
                                               "action_sets": .array(outcomes.map(\.json))]
            if firing.disabledItself {
                store.triggers[trigger.id] = trigger
                fields["disabled"] = true  // execute_once
            }
            automationEvent("trigger", trigger.id, "fired", fields)
        }
    }
}
