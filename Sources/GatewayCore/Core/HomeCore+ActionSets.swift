import Automation
import HomeModel
import JSON

extension HomeCore {
    /// Action sets: list, add, update, remove, run.
    mutating func runActionSets(_ command: ActionSetCommand) throws -> HomeResult {
        switch command {
        case .list(let reference, let page):
            let home = try structure.resolveHome(reference)
            let all = automation.orderedActionSets.filter { $0.home == home.id }
            return .actionSets(home: home.id, total: all.count, Array(page.apply(all)))
        case .add(let raw, let reference, let actions):
            let home = try structure.resolveHome(reference)
            let name = try checkActionSetName(raw, home: home.id, except: nil)
            try ActionSet.check(actions, against: characteristicLookup(home: home.id))
            var set = ActionSet(id: automation.newActionSetID(for: name), name: name, home: home.id)
            try set.add(actions)
            putActionSet(set, change: .added)
            return .actionSet(set)
        case .update(let reference, let home, let changes):
            var set = try resolveActionSet(reference, home: try layout.homeScope(home))
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
            let set = try resolveActionSet(reference, home: try layout.homeScope(home))
            if let reason = readOnlyReason(set) { throw HomeError.conflict(reason) }
            removeActionSet(set.id)
            return .removed(set.id)
        case .execute(let reference, let home):
            let set = try resolveActionSet(reference, home: try layout.homeScope(home))
            let run = execute([set.id], by: .api)[0]
            if let first = run.steps.lazy.compactMap({ if case .failure(let e) = $0.outcome { e } else { nil } }).first {
                throw Refusal(error: HomeError(first.kind, "\(run.failures) of \(run.steps.count) actions failed"), result: .execution(run))
            }
            return .execution(run)
        }
    }

    /// An action set by id, or by name in `home` (the primary home when nil).
    func resolveActionSet(_ reference: String, home: String?) throws -> ActionSet {
        try automation.resolveActionSet(reference, in: home ?? structure.primaryHome)
    }

    func checkActionSetName(_ raw: String, home: String, except id: String?) throws -> String {
        try automation.checkActionSetName(raw, home: home, homeName: structure.home(id: home)?.name ?? home, except: id)
    }

    mutating func putActionSet(_ set: ActionSet, change: ActionSetEvent.Change) {
        emit(.event(automation.put(set, change: change)))
    }

    /// Removes an action set; triggers that ran it no longer do (as in HomeKit).
    mutating func removeActionSet(_ id: String) {
        for event in automation.removeActionSet(id) { emit(.event(event)) }
    }

    /// Runs action sets together: every write checked again against the accessory as it is now,
    /// one coalesced write per device, a result per action, and an event per action set naming who
    /// ran it. The values it changes are credited to the action set, or to the trigger that ran it.
    mutating func execute(_ ids: [String], by initiator: ChangeSource) -> [ActionSetRun] {
        let source = initiator == .api && ids.count == 1 ? ChangeSource.actionSet(ids[0]) : initiator
        let sets = ids.compactMap { automation.actionSets[$0] }
        // An accessory moved to another home since the action was added is not written.
        var moved: [HomeError?] = []
        var requests: [WriteRequest] = []
        for set in sets {
            for action in set.actions {
                if table[action.path.accessory] != nil, let home = structure.home(ofAccessory: action.path.accessory), home != set.home {
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
        for set in sets {
            var run = ActionSetRun(actionSet: set.id, steps: [])
            if let scene = set.recall {
                run.steps.append(ActionSetRun.Step(target: .scene(scene), outcome: recall(scene).map { nil }))
            }
            for action in set.actions {
                let result = problems.next()!.map { Result<CharacteristicValue, HomeError>.failure($0) } ?? written.next()!
                run.steps.append(ActionSetRun.Step(target: .characteristic(action.path), outcome: result.map { $0 }))
            }
            let set = automation.executed(set.id, at: now) ?? set
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
