/// Homes, rooms and zones. `home` names the home to look a room or zone name up in (nil: the primary home).
public enum StructureCommand: Sendable {
    case listHomes
    case addHome(name: String)
    case renameHome(String, to: String)
    case setPrimaryHome(String)
    case removeHome(String)
    case listRooms(home: String?)
    case addRoom(name: String, home: String?)
    case renameRoom(String, to: String, home: String?)
    case removeRoom(String, home: String?)
    case listZones(home: String?)
    case addZone(name: String, home: String?, rooms: [String])
    case renameZone(String, to: String, home: String?)
    case removeZone(String, home: String?)
    case addRoomToZone(zone: String, room: String, home: String?)
    case removeRoomFromZone(zone: String, room: String, home: String?)

    /// Whether it changes what is stored: its reply is given only once that is committed.
    public var changesHome: Bool {
        switch self {
        case .listHomes, .listRooms, .listZones: false
        case .addHome, .renameHome, .setPrimaryHome, .removeHome, .addRoom, .renameRoom, .removeRoom, .addZone, .renameZone,
            .removeZone, .addRoomToZone, .removeRoomFromZone:
            true
        }
    }
}
