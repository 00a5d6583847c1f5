import Automation
import Foundation
import HomeModel

/// What a step publishes of the structure and what it stores: each follows from what the parts
/// changed (the layout's change log, the batch's events, the trigger engine's dirty runtimes).
extension HomeCore {
    /// `homegate/event/<type>/<id>`: homes, rooms, zones and accessories added, removed, renamed,
    /// moved; each stored as the structure's change log says, with the event.
    mutating func publishStructureChanges() {
        var events: [HomeEvent] = []
        defer { held = events.map { .event($0) } + held }  // the events of a change come before its answer
        for change in layout.drainChanges() {
            switch change.kind {
            case .home:
                store.homes[change.id] = structure.home(id: change.id)
                if change.what == .primary || change.what == .added { store.primaryHome = structure.primaryHome }
                let home = structure.home(id: change.id)
                events.append(.home(change.id, change.what, now: home, primary: home?.id == structure.primaryHome))
            case .room:
                store.rooms[change.id] = structure.room(id: change.id)
                events.append(.room(change.id, change.what, now: structure.room(id: change.id)))
            case .zone:
                store.zones[change.id] = structure.zone(id: change.id)
                events.append(.zone(change.id, change.what, now: structure.zone(id: change.id)))
            case .accessory:
                store.placements[change.id] = structure.placements[change.id]  // also of an accessory not here now (an import)
                step.scenesStale = true
                if change.what == .room || change.what == .renamed || change.what == .serviceRenamed {
                    placeAndName(change.id); step.dirtyStates.insert(change.id); step.treeChanged = true
                }
                if change.what == .removed || table[change.id] != nil, let what = AccessoryChange(rawValue: change.what.rawValue) {
                    events.append(accessoryEvent(change.id, what, service: change.service))
                }
            }
        }
    }

    /// Structural events go out once what they announce is stored; reachability is not stored, so at once.
    mutating func publishAccessoryEvent(_ id: String, _ what: AccessoryChange) {
        let event = accessoryEvent(id, what)
        if what == .reachability { out.append(.event(event)) } else { held.append(.event(event)) }
    }

    func accessoryEvent(_ id: String, _ what: AccessoryChange, service: String? = nil) -> HomeEvent {
        let state = table[id].map { entry in
            AccessoryPlacementState(
                name: entry.accessory.name, home: entry.accessory.home, room: entry.accessory.room,
                reachable: entry.accessory.reachable, unreachableReason: entry.accessory.unreachableReason,
                service: service.map { ($0, entry.accessory[$0]?.name) })
        }
        return .accessory(id, what, now: state)
    }

    /// The whole home as one batch that replaces what is stored: how the store is brought back in
    /// line when a batch of changes could not be written.
    public func snapshot() -> StoreBatch {
        var values = table.storedValues
        for accessory in accessories {
            for service in accessory.services {
                for characteristic in service.characteristics where characteristic.type != .programmable_switch_event {
                    if let value = characteristic.value {
                        values[CharacteristicPath(accessory: accessory.id, service: service.id, characteristic: characteristic.name)] =
                            value
                    }
                }
            }
        }
        var batch = StoredHome(
            structure: structure, actionSets: automation.orderedActionSets,
            triggers: automation.orderedTriggers, runtimes: automation.engine.runtime, values: values
        ).batch
        for base in bridges.baseTopics { if let inventory = storedInventory(base) { batch.inventories[base] = inventory } }
        return batch
    }

    /// What to store follows from what changed, not from marks by each change: the structure from
    /// its change log (`publishStructureChanges`), values, action sets and triggers from the batch's
    /// events, each stored as it now is, and trigger runtimes (deadlines, last fires), which are not
    /// announced, from the trigger engine.
    mutating func collectStoreChanges() {
        for effect in out { if case .event(let event) = effect { store(event) } }
        for effect in held { if case .event(let event) = effect { store(event) } }
        collectInventories()
        let (changed, fired) = automation.drainDirty()
        for id in changed { store.runtimes[id] = automation.engine.runtime[id] }
        for id in fired { if let date = automation.engine.runtime[id]?.lastFired { store.lastFired[id] = date } }
    }

    private mutating func store(_ event: HomeEvent) {
        switch event {
        case .characteristic(let change):
            // A press is an event, not a state: it is not stored.
            if !change.isPress { store.values[change.path] = change.value }
        case .accessory, .home, .room, .zone:
            break  // from the structure's change log
        case .mappingFile:
            break  // not the home's
        case .actionSet(let id, let event):
            if event.change == .executed {
                if let date = automation.actionSets[id]?.lastExecuted { store.lastExecuted[id] = date }
            } else {
                store.actionSets[id] = automation.actionSets[id]
            }
        case .trigger(let id, let event):
            // A fire is stored as the runtime's last fire; an execute-once trigger that fired is stored disabled.
            if event.change != .fired || automation.triggers[id]?.enabled == false { store.triggers[id] = automation.triggers[id] }
        }
    }
}
