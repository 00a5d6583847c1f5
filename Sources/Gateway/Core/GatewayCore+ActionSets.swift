import Automation
import HomeModel
import JSON
import Persistence

extension GatewayCore {
    static let actionSetCommands: [String: HomeCommand] = [
        "action_set/list": HomeCommand(changes: false) { core, r in
            try r.only(["home", "offset", "limit"])
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            let all = core.actionSetOrder.compactMap { core.actionSets[$0] }.filter { $0.home == home.id }
            return ["home": .string(home.id), "total": .integer(all.count), "action_sets": .array(try r.page(of: all).map(\.json))]
        },
        "action_set/add": HomeCommand(changes: true) { core, r in
            try r.only(["name", "home", "actions"])
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            let name = try core.checkActionSetName(try r.string("name"), home: home.id, except: nil)
            let actions = r.body["actions"] == nil ? [] : try Action.list(r.body["actions"], at: "actions")
            try ActionSet.check(actions, against: core.characteristicLookup(home: home.id))
            var set = ActionSet(id: Naming.newID(for: name) { core.actionSets[$0] != nil }, name: name, home: home.id)
            try set.add(actions)
            core.putActionSet(set, change: "added")
            return set.json
        },
        "action_set/update": HomeCommand(changes: true) { core, r in
            try r.only(["action_set", "home", "name", "actions", "add_actions", "remove_actions"])
            var set = try core.resolveActionSet(try r.string("action_set"), home: try core.homeScope(r))
            if let reason = core.readOnlyReason(set) { throw RequestError(reason) }
            if let name = try r.optionalString("name") { set.name = try core.checkActionSetName(name, home: set.home, except: set.id) }
            let lookup = core.characteristicLookup(home: set.home)
            if r.body["actions"] != nil {
                let actions = try Action.list(r.body["actions"], at: "actions")
                try ActionSet.check(actions, against: lookup)
                set.actions = []
                try set.add(actions)
            }
            if r.body["remove_actions"] != nil { try set.remove(try Action.paths(r.body["remove_actions"], at: "remove_actions")) }
            if r.body["add_actions"] != nil {
                let added = try Action.list(r.body["add_actions"], at: "add_actions")
                try ActionSet.check(added, against: lookup, at: "add_actions")
                try set.add(added)
            }
            core.putActionSet(set, change: "updated")
            for id in core.triggerOrder where core.engine.triggers[id]?.actionSets.contains(set.id) == true { core.store.triggers[id] = core.engine.triggers[id] }
            return set.json
        },
        "action_set/remove": HomeCommand(changes: true) { core, r in
            try r.only(["action_set", "home"])
            let set = try core.resolveActionSet(try r.string("action_set"), home: try core.homeScope(r))
            if let reason = core.readOnlyReason(set) { throw RequestError(reason) }
            core.removeActionSet(set.id)
            return ["removed": .string(set.id)]
        },
        "action_set/execute": HomeCommand(changes: false) { core, r in
            try r.only(["action_set", "home"])
            let set = try core.resolveActionSet(try r.string("action_set"), home: try core.homeScope(r))
            let outcome = core.execute([set.id], by: .api)[0]
            if outcome.failures > 0 { throw RequestError("\(outcome.failures) of \(outcome.results.count) actions failed", data: outcome.json) }
            return outcome.json
        },
    ]

    /// An action set by id, or by name in `home` (the primary home when nil).
    func resolveActionSet(_ reference: String, home: String?) throws -> ActionSet {
        if let set = actionSets[reference] { return set }
        let scope = home ?? structure.primaryHome
        if let id = actionSetOrder.first(where: { actionSets[$0]?.home == scope && Naming.same(actionSets[$0]!.name, reference) }) {
            return actionSets[id]!
        }
        throw RequestError("no action set '\(reference)'\(didYouMean(reference, actionSetOrder))")
    }

    func checkActionSetName(_ raw: String, home: String, except id: String?) throws -> String {
        let name = try Naming.check(raw, for: "action set").get()
        if let other = actionSets.values.first(where: { $0.home == home && $0.id != id && Naming.same($0.name, name) }) {
            throw StructureError.duplicateName(kind: "action set", other.name, scope: "in \(structure.home(id: home)?.name ?? home)")
        }
        return name
    }

    mutating func putActionSet(_ set: ActionSet, change: String) {
        if actionSets[set.id] == nil { actionSetOrder.append(set.id) }
        actionSets[set.id] = set
        store.actionSets[set.id] = set
        automationEvent("action_set", set.id, change, ["name": .string(set.name), "home": .string(set.home)])
    }

    /// Removes an action set; triggers that ran it no longer do (as in HomeKit).
    mutating func removeActionSet(_ id: String) {
        guard let set = actionSets.removeValue(forKey: id) else { return }
        actionSetOrder.removeAll { $0 == id }
        store.actionSets[id] = nil
        unlink(actionSet: id, outside: nil)
        automationEvent("action_set", id, "removed", ["name": .string(set.name), "home": .string(set.home)])
    }

    /// Triggers that run the action set no longer do, but for those of `home` (nil: all of them).
    mutating func unlink(actionSet id: String, outside home: String?) {
        for trigger in triggerOrder where engine.triggers[trigger].map({ $0.actionSets.contains(id) && $0.home != home }) == true {
            engine.modify(trigger) { $0.actionSets.removeAll { $0 == id } }
            store.triggers[trigger] = engine.triggers[trigger]
            if let updated = engine.triggers[trigger] {
                automationEvent("trigger", trigger, "updated", ["name": .string(updated.name), "home": .string(updated.home)])
            }
        }
    }

    /// A removed home takes its action sets and triggers with it.
    mutating func removeAutomation(ofHome home: String) {
        for id in triggerOrder where engine.triggers[id]?.home == home { removeTrigger(id) }
        for id in actionSetOrder where actionSets[id]?.home == home { removeActionSet(id) }
    }

    struct ExecutionOutcome {
        var actionSet: String
        var results: [JSONValue]
        var failures: Int
        var json: JSONValue { ["action_set": .string(actionSet), "results": .array(results)] }
    }

    /// Runs action sets together: every write checked again against the accessory as it is now,
    /// one coalesced write per device, a result per action, and an event per action set naming who
    /// ran it. The values it changes are credited to the action set, or to the trigger that ran it.
    mutating func execute(_ ids: [String], by initiator: ChangeSource) -> [ExecutionOutcome] {
        let source = initiator == .api && ids.count == 1 ? ChangeSource.actionSet(ids[0]) : initiator
        let sets = ids.compactMap { actionSets[$0] }
        // An accessory moved to another home since the action was added is not written.
        var moved: [WriteProblem?] = []
        var requests: [WriteRequest] = []
        for set in sets {
            for action in set.actions {
                if entries[action.path.accessory] != nil, let home = structure.home(ofAccessory: action.path.accessory), home != set.home {
                    moved.append(WriteProblem(description: "\(action.path.accessory): is now in home '\(structure.home(id: home)?.name ?? home)', not in this action set's"))
                } else {
                    moved.append(nil)
                    requests.append(WriteRequest(accessory: action.path.accessory, service: action.path.service,
                                                 characteristic: action.path.characteristic, value: action.value.json))
                }
            }
        }
        var written = write(requests, source: source).makeIterator()
        var problems = moved.makeIterator()
        var outcomes: [ExecutionOutcome] = []
        for var set in sets {
            var outcome = ExecutionOutcome(actionSet: set.id, results: [], failures: 0)
            if let scene = set.recall {
                switch recall(scene) {
                case .success:
                    outcome.results.append(["zigbee2mqtt_scene": scene.json, "status": "ok"])
                case .failure(let problem):
                    outcome.failures += 1
                    outcome.results.append(["zigbee2mqtt_scene": scene.json, "status": "error", "error": .string(problem.description)])
                }
            }
            for action in set.actions {
                var fields: [String: JSONValue] = ["characteristic": .string(action.path.description)]
                let result = problems.next()!.map { Result<CharacteristicValue, WriteProblem>.failure($0) } ?? written.next()!
                Self.describe(result, into: &fields)
                if case .failure = result { outcome.failures += 1 }
                outcome.results.append(.object(fields))
            }
            set.lastExecuted = now
            actionSets[set.id] = set
            store.lastExecuted[set.id] = now
            if case .trigger = initiator {} else {
                notice(.info, .automation, "action set '\(set.name)' ran (\(initiator)): \(outcome.results.count - outcome.failures) of \(outcome.results.count) "
                    + (set.recall == nil ? "writes sent" : "scene recalls sent"))
            }
            automationEvent("action_set", set.id, "executed", ["name": .string(set.name), "home": .string(set.home), "source": .string(initiator.description),
                                                              "results": .array(outcome.results)])
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// `homegate/event/action_set/<id>` and `homegate/event/trigger/<id>`.
    mutating func automationEvent(_ type: String, _ id: String, _ change: String, _ fields: [String: JSONValue]) {
        var payload = fields
        payload["type"] = .string(type)
        payload["id"] = .string(id)
        payload["change"] = .string(change)
        payload["time"] = .string(time)
        emit(Outgoing(topics.structureEvent(type, id), JSONValue.object(payload).serializedBytes()))
    }
}
