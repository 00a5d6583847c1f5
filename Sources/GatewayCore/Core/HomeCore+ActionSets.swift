import Automation
import HomeModel
import JSON

extension HomeCore {
    /// Action sets: list, add, update, remove, run.
    mutating func runActionSets(_ command: ActionSetCommand) throws -> HomeResult {
        switch command {
        case .list(let reference, let page):
            let home = try structure.resolveHome(reference)
            let all = actionSetOrder.compactMap { actionSets[$0] }.filter { $0.home == home.id }
            return .actionSets(home: home.id, total: all.count, Array(page.apply(all)))
        case .add(let raw, let reference, let actions):
            let home = try structure.resolveHome(reference)
            let name = try checkActionSetName(raw, home: home.id, except: nil)
            try ActionSet.check(actions, against: characteristicLookup(home: home.id))
            var set = ActionSet(id: Naming.newID(for: name) { actionSets[$0] != nil }, name: name, home: home.id)
            try set.add(actions)
            putActionSet(set, change: .added)
            return .actionSet(set)
        case .update(let reference, let home, let changes):
            var set = try resolveActionSet(reference, home: try homeScope(home))
            if let reason = readOnlyReason(set) { throw HomeError.conflict(reason) }
            if let name = changes.name { set.name = try checkActionSetName(name, home: set.home, except: set.id) }
            let lookup = characteristicLookup(home: set.home)
            if let actions = changes.actions {
                try ActionSet.check(actions, against: lookup)
                set.actions = []
                try set.add(actions)
            }
            if let paths = changes.removeActions { try set.remove(paths) }
            if let added = changes.addActions {
                try ActionSet.check(added, against: lookup, at: "add_actions")
                try set.add(added)
            }
            putActionSet(set, change: .updated)
            return .actionSet(set)
        case .remove(let reference, let home):
            let set = try resolveActionSet(reference, home: try homeScope(home))
            if let reason = readOnlyReason(set) { throw HomeError.conflict(reason) }
            removeActionSet(set.id)
            return .removed(set.id)
        case .execute(let reference, let home):
            let set = try resolveActionSet(reference, home: try homeScope(home))
            let run = execute([set.id], by: .api)[0]
            if let first = run.steps.lazy.compactMap({ if case .failure(let e) = $0.outcome { e } else { nil } }).first {
                throw Refusal(error: HomeError(first.kind, "\(run.failures) of \(run.steps.count) actions failed"), result: .execution(run))
            }
            return .execution(run)
        }
    }

    /// An action set by id, or by name in `home` (the primary home when nil).
    func resolveActionSet(_ reference: String, home: String?) throws -> ActionSet {
        if let set = actionSets[reference] { return set }
        let scope = home ?? structure.primaryHome
        if let id = actionSetOrder.first(where: { actionSets[$0]?.home == scope && Naming.same(actionSets[$0]!.name, reference) }) {
            return actionSets[id]!
        }
        throw HomeError.notFound("no action set '\(reference)'\(didYouMean(reference, actionSetOrder))")
    }

    func checkActionSetName(_ raw: String, home: String, except id: String?) throws -> String {
        let name = try Naming.check(raw, for: "action set").get()
        if let other = actionSets.values.first(where: { $0.home == home && $0.id != id && Naming.same($0.name, name) }) {
            throw StructureError.duplicateName(kind: "action set", other.name, scope: "in \(structure.home(id: home)?.name ?? home)")
        }
        return name
    }

    mutating func putActionSet(_ set: ActionSet, change: ActionSetEvent.Change) {
        if actionSets[set.id] == nil { actionSetOrder.append(set.id) }
        actionSets[set.id] = set
        emit(.event(.actionSet(set.id, ActionSetEvent(change: change, name: set.name, home: set.home))))
    }

    /// Removes an action set; triggers that ran it no longer do (as in HomeKit).
    mutating func removeActionSet(_ id: String) {
        guard let set = actionSets.removeValue(forKey: id) else { return }
        actionSetOrder.removeAll { $0 == id }
        unlink(actionSet: id, outside: nil)
        emit(.event(.actionSet(id, ActionSetEvent(change: .removed, name: set.name, home: set.home))))
    }

    /// Triggers that run the action set no longer do, but for those of `home` (nil: all of them).
    mutating func unlink(actionSet id: String, outside home: String?) {
        for trigger in triggerOrder where engine.triggers[trigger].map({ $0.actionSets.contains(id) && $0.home != home }) == true {
            engine.modify(trigger) { $0.actionSets.removeAll { $0 == id } }
            if let updated = engine.triggers[trigger] {
                emit(.event(.trigger(trigger, TriggerEvent(change: .updated, name: updated.name, home: updated.home))))
            }
        }
    }

    /// A removed home takes its action sets and triggers with it.
    mutating func removeAutomation(ofHome home: String) {
        for id in triggerOrder where engine.triggers[id]?.home == home { removeTrigger(id) }
        for id in actionSetOrder where actionSets[id]?.home == home { removeActionSet(id) }
    }

    /// Runs action sets together: every write checked again against the accessory as it is now,
    /// one coalesced write per device, a result per action, and an event per action set naming who
    /// ran it. The values it changes are credited to the action set, or to the trigger that ran it.
    mutating func execute(_ ids: [String], by initiator: ChangeSource) -> [ActionSetRun] {
        let source = initiator == .api && ids.count == 1 ? ChangeSource.actionSet(ids[0]) : initiator
        let sets = ids.compactMap { actionSets[$0] }
        // An accessory moved to another home since the action was added is not written.
        var moved: [HomeError?] = []
        var requests: [WriteRequest] = []
        for set in sets {
            for action in set.actions {
                if entries[action.path.accessory] != nil, let home = structure.home(ofAccessory: action.path.accessory), home != set.home {
                    moved.append(
                        .conflict(
                            "\(action.path.accessory): is now in home '\(structure.home(id: home)?.name ?? home)', not in this action set's"
                        ))
                } else {
                    moved.append(nil)
                    requests.append(
                        WriteRequest(
                            accessory: action.path.accessory, service: action.path.service,
                            characteristic: action.path.characteristic, value: action.value.json))
                }
            }
        }
        var written = write(requests, source: source).makeIterator()
        var problems = moved.makeIterator()
        var runs: [ActionSetRun] = []
        for var set in sets {
            var run = ActionSetRun(actionSet: set.id, steps: [])
            if let scene = set.recall {
                run.steps.append(ActionSetRun.Step(target: .scene(scene), outcome: recall(scene).map { nil }))
            }
            for action in set.actions {
                let result = problems.next()!.map { Result<CharacteristicValue, HomeError>.failure($0) } ?? written.next()!
                run.steps.append(ActionSetRun.Step(target: .characteristic(action.path), outcome: result.map { $0 }))
            }
            set.lastExecuted = now
            actionSets[set.id] = set
            if case .trigger = initiator {
            } else {
                notice(
                    .info, .automation,
                    "action set '\(set.name)' ran (\(initiator)): \(run.steps.count - run.failures) of \(run.steps.count) "
                        + (set.recall == nil ? "writes sent" : "scene recalls sent"))
            }
            counters.actionSetRuns += 1
            emit(.event(.actionSet(set.id, ActionSetEvent(change: .executed, name: set.name, home: set.home, run: (initiator, run)))))
            runs.append(run)
        }
        return runs
    }
}
