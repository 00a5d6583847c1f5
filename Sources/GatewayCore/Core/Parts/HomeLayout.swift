import HomeModel

/// The house's structure: homes, rooms and zones, where each accessory is (kept for one that left,
/// so it comes back to its room), and the names accessories go by in each home, which are unique
/// there. What an accessory is, the step tells it: its id, the name it wants, its current name.
struct HomeLayout: Sendable {
    private(set) var structure: HomeStructure
    /// Display names in use per home (lower case → accessory id).
    private var names: [String: [String: String]] = [:]

    init(_ structure: HomeStructure) {
        self.structure = structure
    }

    /// Where an accessory goes when it appears (see `HomeStructure.place`).
    mutating func place(accessory id: String, requestedRoom: String?) {
        structure.place(accessory: id, requestedRoom: requestedRoom)
    }

    /// The accessory left: its name is free, its placement stays for a return.
    mutating func departed(_ accessory: Accessory) {
        releaseName(accessory)
        structure.departed(accessory: accessory.id)
    }

    /// What the structure changed since asked last, for the step to publish and store.
    mutating func drainChanges() -> [StructureChange] { structure.drainChanges() }

    // MARK: Names in a home

    /// Where an accessory is and what it is called there.
    struct Label: Equatable {
        var name: String
        /// The name it wanted, when it is called otherwise (taken in its home).
        var wanted: String?
        var home: String
        var room: String
        /// The user's names for its services.
        var serviceNames: [String: String]
        /// Its placement, when the user's name for it was made unique: to store.
        var kept: Placement?
    }

    /// The name the accessory wants: the user's, else its mapping's, else the one it has.
    func wantedName(_ id: String, mappingName: String?, current: String) -> String {
        structure.placements[id]?.name ?? mappingName ?? current
    }

    /// Names the accessory in its home: the name it wants, made unique there with " 2", " 3", ....
    /// `current` is the accessory as it is now (its name in its home, if any, is given up first).
    /// nil for an accessory that is not placed, or placed in a room that is gone.
    mutating func label(_ current: Accessory, mappingName: String?) -> Label? {
        let id = current.id
        guard let placement = structure.placements[id], let room = structure.room(id: placement.room) else { return nil }
        releaseName(current)
        let wanted = placement.name ?? mappingName ?? current.name
        let taken = names[room.home] ?? [:]
        let name = Naming.unique(wanted) { candidate in taken[candidate.lowercased()].map { $0 != id } ?? false }
        var kept: Placement?
        // A name the user gave, made unique, is stored as it now is: otherwise the next start
        // would hand the name to whichever accessory happened to be placed first.
        if name != wanted, placement.name != nil {
            structure.keep(name: name, forAccessory: id)
            kept = structure.placements[id]
        }
        names[room.home, default: [:]][name.lowercased()] = id
        return Label(
            name: name, wanted: name == wanted ? nil : wanted, home: room.home, room: room.id,
            serviceNames: placement.serviceNames, kept: kept)
    }

    /// Whether no accessory of `home` goes by `name`.
    func isFree(_ name: String, in home: String) -> Bool { names[home]?[name.lowercased()] == nil }

    /// The accessory called `name` in `home`, if any.
    func accessory(named name: String, in home: String) -> String? { names[home]?[name.lowercased()] }

    mutating func releaseName(_ accessory: Accessory) {
        guard let home = accessory.home, names[home]?[accessory.name.lowercased()] == accessory.id else { return }
        names[home]?[accessory.name.lowercased()] = nil
    }

    /// Refuses a name another accessory of `home` goes by; `nameOf` gives that one's name as shown.
    func checkAccessoryName(_ name: String, in home: String, for id: String, nameOf: (String) -> String?) throws {
        if let other = names[home]?[name.lowercased()], other != id {
            throw StructureError.duplicateName(
                kind: "accessory", nameOf(other) ?? name, scope: "in \(structure.home(id: home)?.name ?? home) (\(other))")
        }
    }

    // MARK: What people change

    /// The user puts an accessory in a room (see `HomeStructure.assign`).
    mutating func assign(accessory id: String, toRoom room: String) throws {
        try structure.assign(accessory: id, toRoom: room)
    }

    /// The user's name for an accessory; nil goes back to the mapping's.
    mutating func rename(accessory id: String, to name: String?) { structure.rename(accessory: id, to: name) }

    /// The user's name for a service; nil goes back to the mapping's.
    mutating func rename(service: String, ofAccessory id: String, to name: String?) {
        structure.rename(service: service, ofAccessory: id, to: name)
    }

    /// The home named by a command's optional `home`, to look names up in.
    func homeScope(_ reference: String?) throws -> String? {
        try reference.map { try structure.resolveHome($0).id }
    }

    /// Homes, rooms and zones; `accessoriesIn` lists a room's accessories, for the summaries.
    mutating func run(_ command: StructureCommand, accessoriesIn: (String) -> [String]) throws -> HomeResult {
        func homeSummary(_ home: Home) -> HomeSummary {
            HomeSummary(
                home: home, primary: home.id == structure.primaryHome,
                rooms: structure.rooms(in: home.id).map(roomSummary), zones: structure.zones(in: home.id))
        }
        func roomSummary(_ room: Room) -> RoomSummary { RoomSummary(room: room, accessories: accessoriesIn(room.id)) }
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
}
