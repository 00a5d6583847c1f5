import Automation
import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// Applies decoded values to an accessory: each change becomes one event, and the accessory's
    /// state is republished once at the end of the batch. Values that do not fit are reported.
    mutating func apply(_ updates: [CharacteristicUpdate], to id: String, origin topic: String) {
        // Through an index into `values`: `entries[id]!.…` would move the whole entry out of the
        // dictionary and back for each update.
        guard let index = entries.index(forKey: id) else { return }
        for update in updates {
            let key = CharacteristicKey(accessory: id, service: update.service, characteristic: update.characteristic)
            answerReads(for: key, value: update.value)
            var source = ChangeSource.device
            if let pending = pendingWrites[key],
                let characteristic = entries.values[index].accessory[update.service]?[update.characteristic],
                let match = pending.firstIndex(where: { $0.deadline >= now && characteristic.isSame($0.value, update.value) })
            {
                source = pending[match].source
                // The echo of this write: it and the writes before it are done.
                let rest = pending.dropFirst(match + 1)
                pendingWrites[key] = rest.isEmpty ? nil : Array(rest)
            }
            do {
                if let change = try entries.values[index].accessory.update(
                    service: update.service, characteristic: update.characteristic,
                    value: update.value, source: source)
                {
                    publishEvent(change)
                }
            } catch {
                counters.invalid += 1
                notice(.warning, .devices, "\(topic): \(error)")
            }
        }
    }

    mutating func publishEvent(_ change: CharacteristicChange) {
        counters.events += 1
        step.dirtyStates.insert(change.accessory)
        emit(.event(.characteristic(change)))
        let writer: String? = if case .trigger(let id) = change.source { id } else { nil }
        step.firingQueue += engine.changed(
            change.path, to: change.value, from: change.isPress ? nil : change.previous, now: now, value: currentValue
        ).map { QueuedFiring($0, writer: writer) }
    }

    /// Reachability, and why not (`reason` is kept only while unreachable).
    mutating func setReachable(_ id: String, _ reachable: Bool, reason: String?) {
        let reason = reachable ? nil : reason
        guard let entry = entries[id], entry.accessory.reachable != reachable || entry.accessory.unreachableReason != reason else { return }
        if step.reachabilityBefore[id] == nil { step.reachabilityBefore[id] = entry.accessory.reachable }
        entries[id]!.accessory.reachable = reachable
        entries[id]!.accessory.unreachableReason = reason
        step.dirtyStates.insert(id)  // the event, if the batch ends with a change, and the state go out once, at its end
    }

    /// Adds or replaces an accessory: it is placed in its home and room, named uniquely in its
    /// home, and a new one gets the values last stored for it.
    mutating func insert(_ entry: Entry) {
        var entry = entry
        markUnwritable(&entry)
        for service in entry.accessory.services { if let name = service.name { entry.mappingServiceNames[service.id] = name } }
        let id = entry.accessory.id
        let old = entries[id]
        if old == nil {
            order.append(id)
            restoreStoredValues(into: &entry.accessory)
        }
        entry.lastSeen = entry.lastSeen ?? old?.lastSeen
        structure.place(accessory: id, requestedRoom: entry.accessory.requestedRoom)
        // Its name as it was is free (a device renamed in Zigbee2MQTT): placing names it anew.
        if let old { releaseName(old.accessory) }
        entries[id] = entry
        placeAndName(id)
        if let old, old.accessory.name != entries[id]!.accessory.name, structure.placements[id]?.name == nil {
            publishAccessoryEvent(id, .renamed)
        }
        if old == nil, departed.remove(id) != nil { publishAccessoryEvent(id, .added) }
        // Built again the same (a device list in which only another device changed), it has nothing
        // new to publish: the tree and its state are written from the accessory alone.
        if old?.accessory != entries[id]!.accessory {
            step.dirtyStates.insert(id)
            step.treeChanged = true
        }
    }

    mutating func remove(_ id: String) {
        guard let removed = entries.removeValue(forKey: id) else { return }
        releaseName(removed.accessory)
        structure.departed(accessory: id)
        departed.insert(id)
        order.removeAll { $0 == id }
        step.dirtyStates.remove(id)
        pendingWrites = pendingWrites.filter { $0.key.accessory != id }
        emit(.stateRemoved(id))
        step.treeChanged = true
    }

    /// Carries values from the accessory as it was into the rebuilt one, for every characteristic
    /// that still exists: a reload or a rename does not forget the house.
    static func carryValues(from old: Accessory, into new: inout Accessory) {
        new.reachable = old.reachable
        new.unreachableReason = old.unreachableReason
        for s in new.services.indices {
            guard let oldService = old[new.services[s].id] else { continue }
            for c in new.services[s].characteristics.indices {
                let name = new.services[s].characteristics[c].name
                if let value = oldService[name]?.value, case .success(let fitting) = new.services[s].characteristics[c].check(value) {
                    new.services[s].characteristics[c].value = fitting
                }
            }
        }
    }
}
