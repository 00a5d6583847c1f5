public import Foundation
import HomeModel
public import Mappings

extension HomeCore {
    /// Applies edited mapping files while running. Accessories that did not change keep their
    /// values; ones that are gone are removed; a bridge keeps what it knows about its devices.
    public mutating func reload(_ new: MappingSet, now: Date = Date()) -> CoreOutput {
        begin(now)
        let requestedBefore = entries.mapValues(\.accessory.requestedRoom)
        let oldBridges = Dictionary(bridges.map { ($0.source.baseTopic, $0) }, uniquingKeysWith: { a, _ in a })
        // Explicit accessories: routes are rebuilt from scratch, values carried by id.
        let explicitIDs = entries.compactMap { id, entry -> String? in
            if case .explicit = entry.source { return id } else { return nil }
        }
        let keptIDs = Set(new.accessories.map(\.accessory.id))
        for id in explicitIDs where !keptIDs.contains(id) { remove(id) }
        stateRoutes = [:]
        availabilityRoutes = [:]
        for accessory in new.accessories { addExplicit(accessory) }
        // Bridges: indices change when files do, so every Zigbee2MQTT accessory is rebuilt.
        bridges = new.zigbee2mqtt.map { source in
            var bridge = oldBridges[source.baseTopic] ?? Bridge(source: source)
            bridge.source = source
            return bridge
        }
        let liveBases = Set(bridges.map(\.source.baseTopic))
        for (id, entry) in entries {
            guard case .zigbee2mqtt(_, let mapping) = entry.source else { continue }
            let base = entry.accessory.bridge ?? ""
            guard liveBases.contains(base), let index = bridges.firstIndex(where: { $0.source.baseTopic == base }) else {
                remove(id)
                continue
            }
            entries[id]!.source = .zigbee2mqtt(bridge: index, mapping: mapping)
        }
        for index in bridges.indices { rebuild(bridge: index, requestState: true) }
        warnAboutPinnedRooms(requestedBefore)
        mappings = new
        treeChanged = true
        return finish()
    }

    /// A mapping's room changed for an accessory moved with `accessory/assign_room`: the move wins,
    /// which the edit alone would not show.
    mutating func warnAboutPinnedRooms(_ before: [String: String?]) {
        for id in order {
            guard let entry = entries[id], let old = before[id], let wanted = entry.accessory.requestedRoom, wanted != old,
                  let placement = structure.placements[id], placement.pinned else { continue }
            let current = structure.room(id: placement.room)?.name ?? placement.room
            notice(.warning, .mappings, "\(id): its mapping now puts it in '\(wanted)', but it was moved to '\(current)' with accessory/assign_room, "
                + "and it stays there; use accessory/assign_room to move it")
        }
    }
}
