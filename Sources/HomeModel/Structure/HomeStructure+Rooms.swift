extension HomeStructure {
    @discardableResult
    public mutating func addRoom(named raw: String, in homeID: String) throws(StructureError) -> Room {
        guard let home = home(id: homeID) else { throw .notFound(kind: "home", homeID, suggestion: "") }
        let name = try Self.checkName(raw, kind: "room", among: rooms(in: homeID).map(\.name), scope: "in \(home.name)")
        let room = Room(id: Naming.newID(for: name, taken: idTaken), name: name, home: homeID)
        rooms.append(room)
        record(.room, room.id, .added)
        return room
    }

    public mutating func renameRoom(_ id: String, to raw: String) throws(StructureError) {
        guard let index = rooms.firstIndex(where: { $0.id == id }) else { throw .notFound(kind: "room", id, suggestion: "") }
        let room = rooms[index]
        let name = try Self.checkName(
            raw, kind: "room", among: rooms(in: room.home).map(\.name),
            scope: "in \(home(id: room.home)?.name ?? room.home)", except: room.name)
        guard name != room.name else { return }
        rooms[index].name = name
        record(.room, id, .renamed)
    }

    /// Removes a room: its accessories move to the home's default room, and it leaves every zone.
    public mutating func removeRoom(_ id: String) throws(StructureError) {
        guard let room = room(id: id), let home = home(id: room.home) else { throw .notFound(kind: "room", id, suggestion: "") }
        guard id != home.defaultRoom else { throw .defaultRoom(room.name) }
        for (accessory, placement) in placements.sorted(by: { $0.key < $1.key }) where placement.room == id {
            placements[accessory]?.room = home.defaultRoom
            record(.accessory, accessory, .room)
        }
        for index in zones.indices where zones[index].rooms.contains(id) {
            zones[index].rooms.removeAll { $0 == id }
            record(.zone, zones[index].id, .rooms)
        }
        rooms.removeAll { $0.id == id }
        record(.room, id, .removed)
    }

    @discardableResult
    public mutating func addZone(named raw: String, in homeID: String, rooms roomIDs: [String] = []) throws(StructureError) -> Zone {
        guard let home = home(id: homeID) else { throw .notFound(kind: "home", homeID, suggestion: "") }
        let name = try Self.checkName(raw, kind: "zone", among: zones(in: homeID).map(\.name), scope: "in \(home.name)")
        for roomID in roomIDs { try checkRoom(roomID, belongsTo: home, zone: name) }
        var unique: [String] = []
        for roomID in roomIDs where !unique.contains(roomID) { unique.append(roomID) }
        let zone = Zone(id: Naming.newID(for: name, taken: idTaken), name: name, home: homeID, rooms: unique)
        zones.append(zone)
        record(.zone, zone.id, .added)
        return zone
    }

    public mutating func renameZone(_ id: String, to raw: String) throws(StructureError) {
        guard let index = zones.firstIndex(where: { $0.id == id }) else { throw .notFound(kind: "zone", id, suggestion: "") }
        let zone = zones[index]
        let name = try Self.checkName(
            raw, kind: "zone", among: zones(in: zone.home).map(\.name),
            scope: "in \(home(id: zone.home)?.name ?? zone.home)", except: zone.name)
        guard name != zone.name else { return }
        zones[index].name = name
        record(.zone, id, .renamed)
    }

    public mutating func removeZone(_ id: String) throws(StructureError) {
        guard zone(id: id) != nil else { throw .notFound(kind: "zone", id, suggestion: "") }
        zones.removeAll { $0.id == id }
        record(.zone, id, .removed)
    }

    public mutating func addRoom(_ roomID: String, toZone zoneID: String) throws(StructureError) {
        guard let index = zones.firstIndex(where: { $0.id == zoneID }) else { throw .notFound(kind: "zone", zoneID, suggestion: "") }
        guard let home = home(id: zones[index].home) else { throw .notFound(kind: "home", zones[index].home, suggestion: "") }
        try checkRoom(roomID, belongsTo: home, zone: zones[index].name)
        guard !zones[index].rooms.contains(roomID) else {
            throw .zoneMembership("room '\(room(id: roomID)?.name ?? roomID)' is already in zone '\(zones[index].name)'")
        }
        zones[index].rooms.append(roomID)
        record(.zone, zoneID, .rooms)
    }

    public mutating func removeRoom(_ roomID: String, fromZone zoneID: String) throws(StructureError) {
        guard let index = zones.firstIndex(where: { $0.id == zoneID }) else { throw .notFound(kind: "zone", zoneID, suggestion: "") }
        guard zones[index].rooms.contains(roomID) else {
            throw .zoneMembership("room '\(room(id: roomID)?.name ?? roomID)' is not in zone '\(zones[index].name)'")
        }
        zones[index].rooms.removeAll { $0 == roomID }
        record(.zone, zoneID, .rooms)
    }

    private func checkRoom(_ roomID: String, belongsTo home: Home, zone: String) throws(StructureError) {
        guard let room = room(id: roomID) else { throw .notFound(kind: "room", roomID, suggestion: didYouMean(roomID, rooms.map(\.id))) }
        guard room.home == home.id else {
            throw .otherHome(
                "room '\(room.name)' is in home '\(self.home(id: room.home)?.name ?? room.home)', zone '\(zone)' is in '\(home.name)'")
        }
    }
}
