import Automation
import HomeModel

extension HomeCore {
    /// Homes, rooms and zones.
    mutating func runStructure(_ command: StructureCommand) throws -> HomeResult {
        switch command {
        case .listHomes:
            return .homes(primary: structure.primaryHome, structure.homes.map(homeSummary))
        case .addHome(let name):
            let home = try structure.addHome(named: name)  // apart: `homeSummary(try …)` would read the structure from before
            return .home(homeSummary(home))
        case .renameHome(let reference, let name):
            let home = try structure.resolveHome(reference)
            try structure.renameHome(home.id, to: name)
            return .home(homeSummary(structure.home(id: home.id)!))
        case .setPrimaryHome(let reference):
            let home = try structure.resolveHome(reference)
            try structure.setPrimary(home.id)
            return .home(homeSummary(home))
        case .removeHome(let reference):
            let home = try structure.resolveHome(reference)
            try structure.removeHome(home.id)
            removeAutomation(ofHome: home.id)
            return .removed(home.id)
        case .listRooms(let reference):
            let home = try structure.resolveHome(reference)
            return .rooms(home: home.id, structure.rooms(in: home.id).map(roomSummary))
        case .addRoom(let name, let reference):
            let home = try structure.resolveHome(reference)
            let room = try structure.addRoom(named: name, in: home.id)
            return .room(roomSummary(room))
        case .renameRoom(let reference, let name, let home):
            let room = try structure.resolveRoom(reference, home: try homeScope(home))
            try structure.renameRoom(room.id, to: name)
            return .room(roomSummary(structure.room(id: room.id)!))
        case .removeRoom(let reference, let home):
            let room = try structure.resolveRoom(reference, home: try homeScope(home))
            try structure.removeRoom(room.id)
            return .removed(room.id)
        case .listZones(let reference):
            let home = try structure.resolveHome(reference)
            return .zones(home: home.id, structure.zones(in: home.id))
        case .addZone(let name, let reference, let rooms):
            let home = try structure.resolveHome(reference)
            let ids = try rooms.map { try structure.resolveRoom($0, home: home.id).id }
            return .zone(try structure.addZone(named: name, in: home.id, rooms: ids))
        case .renameZone(let reference, let name, let home):
            let zone = try structure.resolveZone(reference, home: try homeScope(home))
            try structure.renameZone(zone.id, to: name)
            return .zone(structure.zone(id: zone.id)!)
        case .removeZone(let reference, let home):
            let zone = try structure.resolveZone(reference, home: try homeScope(home))
            try structure.removeZone(zone.id)
            return .removed(zone.id)
        case .addRoomToZone(let zoneReference, let roomReference, let home):
            let zone = try structure.resolveZone(zoneReference, home: try homeScope(home))
            try structure.addRoom(try structure.resolveRoom(roomReference, home: zone.home).id, toZone: zone.id)
            return .zone(structure.zone(id: zone.id)!)
        case .removeRoomFromZone(let zoneReference, let roomReference, let home):
            let zone = try structure.resolveZone(zoneReference, home: try homeScope(home))
            try structure.removeRoom(try structure.resolveRoom(roomReference, home: zone.home).id, fromZone: zone.id)
            return .zone(structure.zone(id: zone.id)!)
        }
    }

    /// Where an accessory is and what it is called.
    mutating func runAccessories(_ command: AccessoryCommand) throws -> HomeResult {
        switch command {
        case .assignRoom(let reference, let roomReference, let home):
            let id = try knownAccessory(reference)
            let room = try structure.resolveRoom(roomReference, home: try homeScope(home))
            if let current = entries[id]?.accessory, current.home != room.home {
                try checkAccessoryName(current.name, in: room.home, for: id)
            }
            try structure.assign(accessory: id, toRoom: room.id)
            return .placement(placement(id))
        case .rename(let reference, let raw):
            let id = try knownAccessory(reference)
            var name: String?
            if let raw {
                name = try Naming.check(raw, for: "accessory").get()
                try checkAccessoryName(name!, in: entries[id]?.accessory.home ?? structure.primaryHome, for: id)
            }
            structure.rename(accessory: id, to: name)
            return .placement(placement(id))
        case .renameService(let reference, let service, let raw):
            let id = try knownAccessory(reference)
            guard let accessory = entries[id]?.accessory else {
                throw HomeError.notFound("\(id): is not here now, so its services are not known; rename its services once it is back")
            }
            guard accessory[service] != nil else {
                throw HomeError(
                    .notFound, "\(id): no service '\(service)'\(didYouMean(service, accessory.services.map(\.id)))", field: "service")
            }
            let name = try raw.map { try Naming.check($0, for: "service").get() }
            structure.rename(service: service, ofAccessory: id, to: name)
            let now = name ?? mappingServiceName(id, service, accessoryName: accessory.name)
            return .serviceName(accessory: id, service: service, name: now)
        case .identify(let reference):
            return try identify(try knownAccessory(reference))
        }
    }

    /// The home named by a command's optional `home`, to look names up in.
    func homeScope(_ reference: String?) throws -> String? {
        try reference.map { try structure.resolveHome($0).id }
    }

    /// An accessory by id, or by name where the name is one accessory's (names are unique only per home).
    func knownAccessory(_ reference: String) throws -> String {
        if entries[reference] != nil || structure.placements[reference] != nil { return reference }
        let named = order.filter { entries[$0].map { Naming.same($0.accessory.name, reference) } ?? false }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            let which = named.map { "\($0) (\(structure.home(id: entries[$0]?.accessory.home ?? "")?.name ?? "?"))" }.joined(
                separator: ", ")
            throw HomeError.conflict("'\(reference)' is the name of several accessories: \(which); use an id")
        }
        throw HomeError.notFound(
            "no accessory '\(reference)'\(didYouMean(reference, order + order.compactMap { entries[$0]?.accessory.name }))")
    }

    func checkAccessoryName(_ name: String, in home: String, for id: String) throws {
        if let other = accessoryNames[home]?[name.lowercased()], other != id {
            throw StructureError.duplicateName(
                kind: "accessory", entries[other]?.accessory.name ?? name,
                scope: "in \(structure.home(id: home)?.name ?? home) (\(other))")
        }
    }

    func homeSummary(_ home: Home) -> HomeSummary {
        HomeSummary(
            home: home, primary: home.id == structure.primaryHome, rooms: structure.rooms(in: home.id).map(roomSummary),
            zones: structure.zones(in: home.id))
    }

    func roomSummary(_ room: Room) -> RoomSummary {
        RoomSummary(room: room, accessories: order.filter { entries[$0]?.accessory.room == room.id })
    }

    func placement(_ id: String) -> AccessoryPlacement {
        let placement = structure.placements[id]
        let room = placement.flatMap { structure.room(id: $0.room) }
        return AccessoryPlacement(id: id, name: placement?.name ?? mappingName(id) ?? id, home: room?.home, room: room?.id)
    }
}
