/// A home: rooms, zones and the accessories placed in them. One home is the primary one.
public struct Home: Sendable, Hashable {
    public let id: String
    public var name: String
    /// The room for "the entire home": where accessories go when no room is named, and where a
    /// removed room's accessories move to.
    public let defaultRoom: String

    public init(id: String, name: String, defaultRoom: String) {
        self.id = id
        self.name = name
        self.defaultRoom = defaultRoom
    }
}

/// A room in one home. An accessory is in exactly one room.
public struct Room: Sendable, Hashable {
    public let id: String
    public var name: String
    public let home: String

    public init(id: String, name: String, home: String) {
        self.id = id
        self.name = name
        self.home = home
    }
}

/// A named group of rooms in one home ("Upstairs"); a room can be in several zones.
public struct Zone: Sendable, Hashable {
    public let id: String
    public var name: String
    public let home: String
    public var rooms: [String]

    public init(id: String, name: String, home: String, rooms: [String] = []) {
        self.id = id
        self.name = name
        self.home = home
        self.rooms = rooms
    }
}

/// Where an accessory is and what the user calls it.
public struct Placement: Sendable, Hashable {
    public var room: String
    /// The user's name for it, over the mapping's; nil keeps the mapping's name.
    public var name: String?
    /// Placed by the user: a mapping's `room` no longer moves it.
    public var pinned: Bool
    /// The room name the mapping asked for when it was last placed: an edit of it moves the
    /// accessory, a room renamed or removed by the user does not bring the old one back.
    public var requested: String?
    /// The user's names for its services by service id (a tile renamed in the Home app), over the mapping's.
    public var serviceNames: [String: String]

    public init(
        room: String, name: String? = nil, pinned: Bool = false, requested: String? = nil, serviceNames: [String: String] = [:]
    ) {
        self.room = room
        self.name = name
        self.pinned = pinned
        self.requested = requested
        self.serviceNames = serviceNames
    }
}

/// One change to the structure, for events and for what to store.
public struct StructureChange: Sendable, Hashable {
    public enum Kind: String, Sendable { case home, room, zone, accessory }
    public enum What: String, Sendable {
        case added, removed, renamed
        /// A home became the primary one.
        case primary
        /// A zone's rooms changed.
        case rooms
        /// An accessory moved to another room.
        case room
        /// One of an accessory's services was given a name, or its mapping's back (`service` says which).
        case serviceRenamed = "service_renamed"
    }

    public var kind: Kind
    public var id: String
    public var what: What
    /// For `serviceRenamed`: the service's id.
    public var service: String?

    public init(_ kind: Kind, _ id: String, _ what: What, service: String? = nil) {
        self.kind = kind
        self.id = id
        self.what = what
        self.service = service
    }
}
