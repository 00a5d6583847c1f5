import Automation
import Foundation
import HomeModel
import Mappings

extension HomeCore {
    /// Looks a characteristic up for an action or trigger of `home`: it must exist and be in that home.
    func characteristicLookup(home: String) -> CharacteristicLookup {
        { [table, structure] path in
            guard let accessory = table[path.accessory]?.accessory else { return .failure(.unknownAccessory(path.accessory)) }
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

    /// Puts the accessory's home, room and display name (the user's name, or the mapping's made
    /// unique in its home with " 2", " 3", ...) on it: the layout names it, the table keeps the name.
    mutating func placeAndName(_ id: String) {
        guard let accessory = table[id]?.accessory, let label = layout.label(accessory, mappingName: table.mappingName(id)) else { return }
        if let wanted = label.wanted {
            notice(.info, .api, "\(id): the name '\(wanted)' is taken in this home; it is called '\(label.name)'")
        }
        if let kept = label.kept { store.placements[id] = kept }
        table.label(id, name: label.name, home: label.home, room: label.room, serviceNames: label.serviceNames)
    }

    /// Accessories called otherwise than they want to be (their name was held by another) take it
    /// when it is free again: a device renamed in Zigbee2MQTT or gone may have freed it. In the order
    /// they were added, as at a start.
    mutating func reclaimNames() {
        for id in table.order {
            guard let entry = table[id], let home = entry.accessory.home, let placement = structure.placements[id] else { continue }
            let wanted = layout.wantedName(id, mappingName: table.mappingName(id), current: entry.accessory.name)
            guard entry.accessory.name != wanted, layout.isFree(wanted, in: home) else { continue }
            placeAndName(id)
            guard table[id]!.accessory.name != entry.accessory.name else { continue }
            if placement.name == nil { publishAccessoryEvent(id, .renamed) }
            step.dirtyStates.insert(id)
            step.treeChanged = true
        }
    }
}
