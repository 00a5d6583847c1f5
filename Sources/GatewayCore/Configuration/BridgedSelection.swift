import HomeModel

/// Which accessories an ecosystem bridge shows (`hap.include`/`hap.exclude`,
/// `matter.include`/`matter.exclude`), decided on the live snapshot
/// each time, so that a selector by name follows renames: an accessory is bridged when `include`
/// is empty or one of it names the accessory, and none of `exclude` does.
public struct BridgedSelection: Sendable, Equatable {
    public var include: [AccessorySelector] = []
    public var exclude: [AccessorySelector] = []

    public init(include: [AccessorySelector] = [], exclude: [AccessorySelector] = []) {
        self.include = include
        self.exclude = exclude
    }

    /// Everything: what a bridge without settings shows.
    public static let everything = BridgedSelection()

    /// The bridged accessories' ids, in the snapshot's order.
    public func bridged(_ snapshot: HomeSnapshot) -> [String] {
        let places = Places(snapshot.structure)
        return snapshot.accessories.filter { accessory in
            (include.isEmpty || include.contains { places.selects($0, accessory) })
                && !exclude.contains { places.selects($0, accessory) }
        }.map(\.id)
    }

    /// The selectors that name no home, room, zone or accessory of the snapshot: a typo, or a
    /// thing renamed since, which the user should hear about rather than find silently ignored.
    public func unmatched(_ snapshot: HomeSnapshot) -> [AccessorySelector] {
        let places = Places(snapshot.structure)
        return (include + exclude).filter { selector in
            let named: Bool =
                switch selector.kind {
                case .home: !places.homes(selector).isEmpty
                case .room: !places.rooms(selector).isEmpty
                case .zone: places.names(zone: selector)
                case .accessory: snapshot.accessories.contains { selector.names(id: $0.id, name: $0.name) }
                }
            return !named
        }
    }

    /// The structure looked up by selector.
    private struct Places {
        let structure: HomeStructure

        init(_ structure: HomeStructure) { self.structure = structure }

        func homes(_ selector: AccessorySelector) -> Set<String> {
            Set(structure.homes.filter { selector.names(id: $0.id, name: $0.name) }.map(\.id))
        }

        func rooms(_ selector: AccessorySelector) -> Set<String> {
            Set(structure.rooms.filter { selector.names(id: $0.id, name: $0.name) }.map(\.id))
        }

        func names(zone selector: AccessorySelector) -> Bool {
            structure.zones.contains { selector.names(id: $0.id, name: $0.name) }
        }

        func zoneRooms(_ selector: AccessorySelector) -> Set<String> {
            Set(structure.zones.filter { selector.names(id: $0.id, name: $0.name) }.flatMap(\.rooms))
        }

        func selects(_ selector: AccessorySelector, _ accessory: Accessory) -> Bool {
            switch selector.kind {
            case .accessory: selector.names(id: accessory.id, name: accessory.name)
            case .home: accessory.home.map { homes(selector).contains($0) } ?? false
            case .room: accessory.room.map { rooms(selector).contains($0) } ?? false
            case .zone: accessory.room.map { zoneRooms(selector).contains($0) } ?? false
            }
        }
    }
}
