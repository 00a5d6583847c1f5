extension HomeStructure {
    /// Where an accessory goes when it appears: where it was before if it is known; otherwise the
    /// room its mapping names (created in the primary home if missing), else the default room.
    /// A placement the user did not pin follows the mapping's room when the mapping's room is edited.
    /// Returns true when the accessory was not known before.
    @discardableResult
    public mutating func place(accessory id: String, requestedRoom: String?) -> Bool {
        if let placement = placements[id], let current = room(id: placement.room) {
            guard placement.requested != requestedRoom else { return false }
            placements[id]?.requested = requestedRoom
            guard !placement.pinned else { return false }
            let target =
                requestedRoom.flatMap { roomForRequest($0, home: current.home) } ?? home(id: current.home)?.defaultRoom ?? current.id
            if target != current.id {
                placements[id]?.room = target
                record(.accessory, id, .room)
            }
            return false
        }
        let known = placements[id] != nil
        let target = requestedRoom.flatMap { roomForRequest($0, home: nil) } ?? primary.defaultRoom
        placements[id] = Placement(
            room: target, name: placements[id]?.name, pinned: false, requested: requestedRoom,
            serviceNames: placements[id]?.serviceNames ?? [:])
        record(.accessory, id, known ? .room : .added)
        return !known
    }

    /// The room named `name` in `home` (the primary home when nil), created when there is none.
    /// nil when the name cannot be a room name.
    private mutating func roomForRequest(_ name: String, home: String?) -> String? {
        let homeID = home ?? primaryHome
        if let room = rooms.first(where: { $0.home == homeID && Naming.same($0.name, name.trimmingSpaces) }) { return room.id }
        return (try? addRoom(named: name, in: homeID))?.id
    }

    /// The user puts an accessory in a room; the mapping's room no longer moves it.
    public mutating func assign(accessory id: String, toRoom roomID: String) throws(StructureError) {
        guard room(id: roomID) != nil else { throw .notFound(kind: "room", roomID, suggestion: "") }
        let old = placements[id]
        placements[id] = Placement(
            room: roomID, name: old?.name, pinned: true, requested: old?.requested, serviceNames: old?.serviceNames ?? [:])
        if old?.room != roomID { record(.accessory, id, .room) }
    }

    /// The user's name for an accessory; nil goes back to the mapping's. Uniqueness among the
    /// accessories of a home is the caller's to check: only it knows the mappings' names.
    public mutating func rename(accessory id: String, to name: String?) {
        guard placements[id] != nil, placements[id]?.name != name else { return }
        placements[id]?.name = name
        record(.accessory, id, .renamed)
    }

    /// The user's name for one of an accessory's services; nil goes back to the mapping's. Whether
    /// the accessory has that service is the caller's to check: only it knows the mappings.
    public mutating func rename(service: String, ofAccessory id: String, to name: String?) {
        guard placements[id] != nil, placements[id]?.serviceNames[service] != name else { return }
        placements[id]?.serviceNames[service] = name
        changes.append(StructureChange(.accessory, id, .serviceRenamed, service: service))
    }

    /// The name the accessory was given to keep it unique in its home (`Lamp 2`), kept as the
    /// user's name so the next start gives every accessory the same name again. Not a change of
    /// its own: the caller stores the placement.
    public mutating func keep(name: String, forAccessory id: String) {
        placements[id]?.name = name
    }

    /// The accessory left (removed from its bridge or its mapping): its placement stays for a return.
    public mutating func departed(accessory id: String) {
        record(.accessory, id, .removed)
    }
}
