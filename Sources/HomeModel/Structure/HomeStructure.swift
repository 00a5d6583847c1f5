/// Homes, rooms, zones and where each accessory is. Pure: every change is checked against the
/// naming and ownership rules, and recorded in `changes` for the owner to publish and store.
public struct HomeStructure: Sendable, Hashable {
    /// In the order they were added.
    public internal(set) var homes: [Home] = []
    public internal(set) var primaryHome: String = ""
    public internal(set) var rooms: [Room] = []
    public internal(set) var zones: [Zone] = []
    /// By accessory id. Kept for accessories that have left, so one that comes back keeps its room and name.
    public internal(set) var placements: [String: Placement] = [:]
    /// What changed since the owner last drained it.
    public internal(set) var changes: [StructureChange] = []

    public static let firstHomeName = "Home"
    public static let defaultRoomName = "Default Room"

    /// A structure with one home, which is primary, and its default room.
    public static func initial() -> HomeStructure {
        var structure = HomeStructure()
        _ = try? structure.addHome(named: firstHomeName)
        return structure
    }

    /// A structure as it was stored; `primary` must be one of `homes`.
    public init(homes: [Home], primaryHome: String, rooms: [Room], zones: [Zone], placements: [String: Placement]) {
        self.homes = homes
        self.primaryHome = primaryHome
        self.rooms = rooms
        self.zones = zones
        self.placements = placements
    }

    init() {}

    public mutating func drainChanges() -> [StructureChange] {
        defer { changes = [] }
        return changes
    }

    mutating func record(_ kind: StructureChange.Kind, _ id: String, _ what: StructureChange.What) {
        changes.append(StructureChange(kind, id, what))
    }

    // MARK: Looking things up

    public func home(id: String) -> Home? { homes.first { $0.id == id } }
    public func room(id: String) -> Room? { rooms.first { $0.id == id } }
    public func zone(id: String) -> Zone? { zones.first { $0.id == id } }
    public var primary: Home { home(id: primaryHome) ?? homes[0] }
    public func rooms(in home: String) -> [Room] { rooms.filter { $0.home == home } }
    public func zones(in home: String) -> [Zone] { zones.filter { $0.home == home } }

    /// The home an accessory is in, through its room.
    public func home(ofAccessory id: String) -> String? { placements[id].flatMap { room(id: $0.room)?.home } }

    /// A home by id or by name; nil means the primary home.
    public func resolveHome(_ reference: String?) throws(StructureError) -> Home {
        guard let reference else { return primary }
        if let home = home(id: reference) ?? homes.first(where: { Naming.same($0.name, reference) }) { return home }
        // A renamed home keeps its id: say whose id it is rather than suggest it bare.
        if let renamed = home(id: Accessory.topicSafeID(reference)) {
            throw .notFound(kind: "home", reference, suggestion: "; '\(renamed.id)' is the id of the home now called '\(renamed.name)'")
        }
        throw .notFound(kind: "home", reference, suggestion: didYouMean(reference, homes.map(\.id) + homes.map(\.name)))
    }

    /// A room by id, or by name in `home` (the primary home when nil).
    public func resolveRoom(_ reference: String, home: String? = nil) throws(StructureError) -> Room {
        if let room = room(id: reference) { return room }
        let scope = home ?? primaryHome
        if let room = rooms.first(where: { $0.home == scope && Naming.same($0.name, reference) }) { return room }
        if let elsewhere = rooms.first(where: { Naming.same($0.name, reference) }), let other = self.home(id: elsewhere.home) {
            throw .notFound(
                kind: "room", reference,
                suggestion: " in \(self.home(id: scope)?.name ?? scope); a room '\(elsewhere.name)' is in home "
                    + "'\(other.name)': add \"home\": \"\(other.id)\", or use its id '\(elsewhere.id)'")
        }
        throw .notFound(kind: "room", reference, suggestion: didYouMean(reference, rooms.filter { $0.home == scope }.map(\.id)))
    }

    /// A zone by id, or by name in `home` (the primary home when nil).
    public func resolveZone(_ reference: String, home: String? = nil) throws(StructureError) -> Zone {
        if let zone = zone(id: reference) { return zone }
        let scope = home ?? primaryHome
        if let zone = zones.first(where: { $0.home == scope && Naming.same($0.name, reference) }) { return zone }
        throw .notFound(kind: "zone", reference, suggestion: didYouMean(reference, zones.map(\.id)))
    }

    /// Every id in use by homes, rooms and zones: one namespace, so a topic names one thing.
    func idTaken(_ id: String) -> Bool {
        homes.contains { $0.id == id } || rooms.contains { $0.id == id } || zones.contains { $0.id == id }
    }

    static func checkName(
        _ raw: String, kind: String, among existing: some Sequence<String>, scope: String,
        except current: String? = nil
    ) throws(StructureError) -> String {
        let name = try Naming.check(raw, for: kind).get()
        for other in existing where Naming.same(other, name) {
            if let current, Naming.same(current, other) { continue }
            throw .duplicateName(kind: kind, other, scope: scope)
        }
        return name
    }
}
