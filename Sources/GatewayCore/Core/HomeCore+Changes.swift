import Automation
import Foundation
import HomeModel
import Mappings

extension HomeCore {
    /// Applies decoded values to an accessory: each change becomes one event, and the accessory's
    /// state is republished once at the end of the batch. Values that do not fit are reported.
    mutating func apply(_ updates: [CharacteristicUpdate], to id: String, origin topic: String) {
        // The step's buffer, kept with its capacity: no allocation per reading.
        var outcomes = step.outcomes
        step.outcomes = []
        defer {
            outcomes.removeAll(keepingCapacity: true)
            step.outcomes = outcomes
        }
        table.apply(updates, to: id, at: now, into: &outcomes)
        for outcome in outcomes {
            switch outcome {
            case .answered(let ticket, let read):
                reply(Reply(ticket: ticket, result: .read(read)))
            case .changed(let change):
                publishEvent(change)
            case .refused(let error):
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
        step.firingQueue += automation.changed(
            change.path, to: change.value, from: change.isPress ? nil : change.previous, now: now, value: table.currentValue
        ).map { QueuedFiring($0, writer: writer) }
    }

    /// Reachability, and why not (`reason` is kept only while unreachable).
    mutating func setReachable(_ id: String, _ reachable: Bool, reason: String?) {
        guard let before = table.setReachable(id, reachable, reason: reason) else { return }
        if step.reachabilityBefore[id] == nil { step.reachabilityBefore[id] = before }
        step.dirtyStates.insert(id)  // the event, if the batch ends with a change, and the state go out once, at its end
    }

    /// Adds or replaces an accessory: it is placed in its home and room, named uniquely in its
    /// home, and a new one gets the values last stored for it.
    mutating func insert(_ entry: Entry) {
        let id = entry.accessory.id
        let (old, returned) = table.insert(entry)
        layout.place(accessory: id, requestedRoom: entry.accessory.requestedRoom)
        // Its name as it was is free (a device renamed in Zigbee2MQTT): placing names it anew.
        if let old { layout.releaseName(old.accessory) }
        placeAndName(id)
        let placed = table[id]!.accessory
        if let old, old.accessory.name != placed.name, layout.structure.placements[id]?.name == nil {
            publishAccessoryEvent(id, .renamed)
        }
        if returned { publishAccessoryEvent(id, .added) }
        // Built again the same (a device list in which only another device changed), it has nothing
        // new to publish: the tree and its state are written from the accessory alone.
        if old?.accessory != placed {
            step.dirtyStates.insert(id)
            step.treeChanged = true
        }
    }

    mutating func remove(_ id: String) {
        guard let removed = table.remove(id) else { return }
        layout.departed(removed.accessory)
        step.dirtyStates.remove(id)
        emit(.stateRemoved(id))
        step.treeChanged = true
    }
}
