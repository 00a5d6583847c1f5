public import Foundation
import HomeModel
public import Mappings

extension HomeCore {
    /// Applies edited mapping files while running. Accessories that did not change keep their
    /// values; ones that are gone are removed; a bridge keeps what it knows about its devices.
    public mutating func reload(_ new: MappingSet, now: Date = Date()) -> CoreOutput {
        begin(now)
        let requestedBefore = table.entries.mapValues(\.accessory.requestedRoom)
        // Explicit accessories: values carried by id.
        let explicitIDs = table.explicitIDs
        let keptIDs = Set(new.accessories.map(\.accessory.id))
        for id in explicitIDs where !keptIDs.contains(id) { remove(id) }
        for accessory in new.accessories { addExplicit(accessory) }
        // Bridges, by base topic: one that stays keeps what it knows about its devices; every
        // Zigbee2MQTT accessory is rebuilt with the new overrides.
        let kept = Set(new.zigbee2mqtt.map(\.baseTopic))
        for base in bridges.baseTopics where !kept.contains(base) { store.inventories[base] = nil }
        bridges.reload(new.zigbee2mqtt)
        for (id, entry) in table.entries {
            if let base = entry.bridge, bridges[base] == nil { remove(id) }
        }
        for base in bridges.baseTopics { rebuild(bridge: base, requestState: true) }
        warnAboutPinnedRooms(requestedBefore)
        mappings = new
        step.treeChanged = true
        return finish()
    }

    /// A mapping's room changed for an accessory moved with `accessory/assign_room`: the move wins,
    /// which the edit alone would not show.
    mutating func warnAboutPinnedRooms(_ before: [String: String?]) {
        let structure = layout.structure
        for id in table.order {
            guard let entry = table[id], let old = before[id], let wanted = entry.accessory.requestedRoom, wanted != old,
                let placement = structure.placements[id], placement.pinned
            else { continue }
            let current = structure.room(id: placement.room)?.name ?? placement.room
            notice(
                .warning, .mappings,
                "\(id): its mapping now puts it in '\(wanted)', but it was moved to '\(current)' with accessory/assign_room, "
                    + "and it stays there; use accessory/assign_room to move it")
        }
    }
}
