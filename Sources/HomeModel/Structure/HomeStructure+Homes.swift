extension HomeStructure {
    /// A new home with its default room. The first home is the primary one.
    @discardableResult
    public mutating func addHome(named raw: String) throws(StructureError) -> Home {
        let name = try Self.checkName(raw, kind: "home", among: homes.map(\.name), scope: "on this gateway")
        let id = Naming.newID(for: name, taken: idTaken)
        let roomID = Naming.newID(for: Self.defaultRoomName, taken: { idTaken($0) || $0 == id })
        let home = Home(id: id, name: name, defaultRoom: roomID)
        homes.append(home)
        rooms.append(Room(id: roomID, name: Self.defaultRoomName, home: id))
        if homes.count == 1 { primaryHome = id }
        record(.home, id, .added)
        record(.room, roomID, .added)
        return home
    }

    public mutating func renameHome(_ id: String, to raw: String) throws(StructureError) {
        guard let index = homes.firstIndex(where: { $0.id == id }) else { throw .notFound(kind: "home", id, suggestion: "") }
        let name = try Self.checkName(raw, kind: "home", among: homes.map(\.name), scope: "on this gateway", except: homes[index].name)
        guard name != homes[index].name else { return }
        homes[index].name = name
        record(.home, id, .renamed)
    }

    public mutating func setPrimary(_ id: String) throws(StructureError) {
        guard home(id: id) != nil else { throw .notFound(kind: "home", id, suggestion: "") }
        guard id != primaryHome else { return }
        let previous = primaryHome
        primaryHome = id
        record(.home, previous, .primary)
        record(.home, id, .primary)
    }

    /// Removes a home with its rooms and zones. Its accessories cannot leave the gateway: they move
    /// to the primary home's default room. Returns the removed home.
    @discardableResult
    public mutating func removeHome(_ id: String) throws(StructureError) -> Home {
        guard let home = home(id: id) else { throw .notFound(kind: "home", id, suggestion: "") }
        guard homes.count > 1 else { throw .lastHome }
        guard id != primaryHome else { throw .primaryHome(home.name) }
        let goneRooms = Set(rooms(in: id).map(\.id))
        let fallback = primary.defaultRoom
        for (accessory, placement) in placements.sorted(by: { $0.key < $1.key }) where goneRooms.contains(placement.room) {
            placements[accessory]?.room = fallback
            record(.accessory, accessory, .room)
        }
        for zone in zones(in: id) { record(.zone, zone.id, .removed) }
        for room in goneRooms.sorted() { record(.room, room, .removed) }
        zones.removeAll { $0.home == id }
        rooms.removeAll { $0.home == id }
        homes.removeAll { $0.id == id }
        record(.home, id, .removed)
        return home
    }
}
