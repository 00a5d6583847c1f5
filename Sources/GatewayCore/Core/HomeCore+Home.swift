import Automation
import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// The value a characteristic has now, or last had before a restart if its accessory has not
    /// appeared yet: what conditions and deadlines read.
    var currentValue: (CharacteristicPath) -> CharacteristicValue? {
        { [entries, storedValues] path in
            if let accessory = entries[path.accessory]?.accessory { return accessory[path]?.value }
            return storedValues[path]
        }
    }

    /// Looks a characteristic up for an action or trigger of `home`: it must exist and be in that home.
    func characteristicLookup(home: String) -> CharacteristicLookup {
        { [entries, structure] path in
            guard let accessory = entries[path.accessory]?.accessory else { return .failure(.unknownAccessory(path.accessory)) }
            switch accessory.locate(service: path.service, characteristic: path.characteristic) {
            case .failure(let problem): return .failure(problem)
            case .success(let (s, c)):
                if let other = structure.home(ofAccessory: path.accessory), other != home {
                    return .failure(.otherHome(accessory: path.accessory, home: structure.home(id: other)?.name ?? other))
                }
                return .success(accessory.services[s].characteristics[c])
            }
        }
    }

    mutating func restoreStoredValues(into accessory: inout Accessory) {
        guard !storedValues.isEmpty else { return }
        for s in accessory.services.indices {
            for c in accessory.services[s].characteristics.indices {
                let path = CharacteristicPath(
                    accessory: accessory.id, service: accessory.services[s].id,
                    characteristic: accessory.services[s].characteristics[c].name)
                guard let value = storedValues.removeValue(forKey: path), accessory.services[s].characteristics[c].value == nil,
                    case .success(let fitting) = accessory.services[s].characteristics[c].check(value)
                else { continue }
                accessory.services[s].characteristics[c].value = fitting
            }
        }
    }

    /// Puts the accessory's home, room and display name (the user's name, or the mapping's made
    /// unique in its home with " 2", " 3", ...) on it.
    mutating func placeAndName(_ id: String) {
        guard var accessory = entries[id]?.accessory, let placement = structure.placements[id],
            let room = structure.room(id: placement.room)
        else { return }
        releaseName(accessory)
        let wanted = placement.name ?? mappingName(id) ?? accessory.name
        let taken = accessoryNames[room.home] ?? [:]
        let name = Naming.unique(wanted) { candidate in taken[candidate.lowercased()].map { $0 != id } ?? false }
        if name != wanted {
            notice(.info, .api, "\(id): the name '\(wanted)' is taken in this home; it is called '\(name)'")
            // A name the user gave, made unique, is stored as it now is: otherwise the next start
            // would hand the name to whichever accessory happened to be placed first.
            if placement.name != nil {
                structure.keep(name: name, forAccessory: id)
                store.placements[id] = structure.placements[id]
            }
        }
        accessory.name = name
        accessory.home = room.home
        accessory.room = room.id
        for s in accessory.services.indices {
            let service = accessory.services[s].id
            accessory.services[s].name = placement.serviceNames[service] ?? mappingServiceName(id, service, accessoryName: name)
        }
        accessoryNames[room.home, default: [:]][name.lowercased()] = id
        entries[id]!.accessory = accessory
    }

    /// The name the accessory's mapping gives a service. A name made of the accessory's name and
    /// an endpoint (`Relay l1`) follows the accessory's name in the home (`Kitchen relay l1`).
    func mappingServiceName(_ id: String, _ service: String, accessoryName: String) -> String? {
        guard let name = entries[id]?.mappingServiceNames[service] else { return nil }
        guard let mapped = mappingName(id), name.hasPrefix(mapped + " "), accessoryName != mapped else { return name }
        return accessoryName + name.dropFirst(mapped.count)
    }

    /// Accessories called otherwise than they want to be (their name was held by another) take it
    /// when it is free again: a device renamed in Zigbee2MQTT or gone may have freed it. In the order
    /// they were added, as at a start.
    mutating func reclaimNames() {
        for id in order {
            guard let entry = entries[id], let placement = structure.placements[id], let home = entry.accessory.home else { continue }
            let wanted = placement.name ?? mappingName(id) ?? entry.accessory.name
            guard entry.accessory.name != wanted, accessoryNames[home]?[wanted.lowercased()] == nil else { continue }
            placeAndName(id)
            guard entries[id]!.accessory.name != entry.accessory.name else { continue }
            if placement.name == nil { publishAccessoryEvent(id, .renamed) }
            step.dirtyStates.insert(id)
            step.treeChanged = true
        }
    }

    mutating func releaseName(_ accessory: Accessory) {
        guard let home = accessory.home, accessoryNames[home]?[accessory.name.lowercased()] == accessory.id else { return }
        accessoryNames[home]?[accessory.name.lowercased()] = nil
    }

    /// The name the accessory's mapping gives it.
    func mappingName(_ id: String) -> String? {
        switch entries[id]?.source {
        case .zigbee2mqtt(_, let mapping): mapping.accessory.name
        case .explicit(let mapping): mapping.accessory.name
        case nil: nil
        }
    }

    // MARK: Structural events and what to store

    /// `homegate/event/<type>/<id>`: homes, rooms, zones and accessories added, removed, renamed,
    /// moved; each stored as the structure's change log says, with the event.
    mutating func publishStructureChanges() {
        var events: [HomeEvent] = []
        defer { held = events.map { .event($0) } + held }  // the events of a change come before its answer
        for change in structure.drainChanges() {
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
                if change.what == .removed || entries[change.id] != nil, let what = AccessoryChange(rawValue: change.what.rawValue) {
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
        let state = entries[id].map { entry in
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
        var values = storedValues
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
            structure: structure, actionSets: actionSetOrder.compactMap { actionSets[$0] },
            triggers: triggerOrder.compactMap { engine.triggers[$0] }, runtimes: engine.runtime, values: values
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
        let (changed, fired) = engine.drainDirty()
        for id in changed { store.runtimes[id] = engine.runtime[id] }
        for id in fired { if let date = engine.runtime[id]?.lastFired { store.lastFired[id] = date } }
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
                if let date = actionSets[id]?.lastExecuted { store.lastExecuted[id] = date }
            } else {
                store.actionSets[id] = actionSets[id]
            }
        case .trigger(let id, let event):
            // A fire is stored as the runtime's last fire; an execute-once trigger that fired is stored disabled.
            if event.change != .fired || engine.triggers[id]?.enabled == false { store.triggers[id] = engine.triggers[id] }
        }
    }
}
