public import Automation
public import Foundation
public import HomeModel
public import JSON

/// Changed things by id, in the order they first changed (so new rows keep their creation order):
/// each is the thing as it is now, or nil when it is gone.
public struct Changes<Value: Sendable & Equatable>: Sendable, Equatable, Sequence {
    private var order: [String] = []
    private var latest: [String: Value?] = [:]

    public init() {}

    /// `value` as it is now; assigning nil records that it is gone.
    public subscript(id: String) -> Value? {
        get { latest[id] ?? nil }
        set {
            if latest.index(forKey: id) == nil { order.append(id) }
            latest[id] = .some(newValue)
        }
    }

    public var isEmpty: Bool { order.isEmpty }
    public var count: Int { order.count }
    public func contains(_ id: String) -> Bool { latest.index(forKey: id) != nil }

    public mutating func merge(_ later: Changes) {
        for (id, value) in later { self[id] = value }
    }

    public func makeIterator() -> some IteratorProtocol<(String, Value?)> {
        order.lazy.map { ($0, latest[$0] ?? nil) }.makeIterator()
    }
}

/// What changed since the last write. Batches merge (the later one wins), so a slow disk gets
/// fewer, larger transactions.
public struct StoreBatch: Sendable, Equatable {
    public var homes = Changes<Home>()
    public var primaryHome: String?
    public var rooms = Changes<Room>()
    public var zones = Changes<Zone>()
    public var placements = Changes<Placement>()
    public var actionSets = Changes<ActionSet>()
    public var triggers = Changes<Trigger>()
    public var runtimes = Changes<TriggerRuntime>()
    public var values: [CharacteristicPath: CharacteristicValue] = [:]
    /// When triggers last fired and action sets last ran, where nothing else about them changed:
    /// like values, these may wait.
    public var lastFired: [String: Date] = [:]
    public var lastExecuted: [String: Date] = [:]
    /// When the values were reported (one time for the batch: it is only for people reading the file).
    public var valuesTime = Date()
    /// Each Zigbee2MQTT bridge's lists as they now are, by base topic (nil: no longer kept).
    public var inventories = Changes<StoredInventory>()
    /// Everything stored is replaced by this batch: a whole home, not changes to one.
    public var replacesAll = false

    public init() {}

    public var isEmpty: Bool {
        !hasStructure && values.isEmpty && lastFired.isEmpty && lastExecuted.isEmpty
    }

    /// Anything but values and last-fired times: these are written promptly, the others may wait.
    public var hasStructure: Bool {
        replacesAll
            || !(homes.isEmpty && primaryHome == nil && rooms.isEmpty && zones.isEmpty && placements.isEmpty && actionSets.isEmpty
                && triggers.isEmpty && runtimes.isEmpty && inventories.isEmpty)
    }

    public mutating func merge(_ later: StoreBatch) {
        if later.replacesAll {  // a whole home supersedes every change before it, but not the device lists
            var inventories = self.inventories
            inventories.merge(later.inventories)
            self = later
            self.inventories = inventories
            return
        }
        inventories.merge(later.inventories)
        homes.merge(later.homes)
        primaryHome = later.primaryHome ?? primaryHome
        rooms.merge(later.rooms)
        zones.merge(later.zones)
        placements.merge(later.placements)
        actionSets.merge(later.actionSets)
        triggers.merge(later.triggers)
        runtimes.merge(later.runtimes)
        values.merge(later.values) { _, new in new }
        // A whole row written later already carries the newer time.
        for (id, _) in later.runtimes { lastFired[id] = nil }
        for (id, _) in later.actionSets { lastExecuted[id] = nil }
        lastFired.merge(later.lastFired) { _, new in new }
        lastExecuted.merge(later.lastExecuted) { _, new in new }
        valuesTime = later.valuesTime
    }
}

/// Everything the database holds, as loaded at start or written by an import.
public struct StoredHome: Sendable, Equatable {
    public var structure: HomeStructure
    public var actionSets: [ActionSet]
    public var triggers: [Trigger]
    public var runtimes: [String: TriggerRuntime]
    public var values: [CharacteristicPath: CharacteristicValue]
    /// Rows that could not be read back (a definition this version does not understand), with why.
    public var skipped: [String]
    /// Each Zigbee2MQTT bridge's last device and group lists: the house as it was, before the broker tells.
    public var inventories: [StoredInventory] = []

    public init(
        structure: HomeStructure, actionSets: [ActionSet] = [], triggers: [Trigger] = [],
        runtimes: [String: TriggerRuntime] = [:], values: [CharacteristicPath: CharacteristicValue] = [:], skipped: [String] = []
    ) {
        self.structure = structure
        self.actionSets = actionSets
        self.triggers = triggers
        self.runtimes = runtimes
        self.values = values
        self.skipped = skipped
    }

    /// Everything as one batch that replaces what is stored (an import, or a resync).
    public var batch: StoreBatch {
        var batch = StoreBatch()
        batch.replacesAll = true
        for home in structure.homes { batch.homes[home.id] = home }
        batch.primaryHome = structure.primaryHome
        for room in structure.rooms { batch.rooms[room.id] = room }
        for zone in structure.zones { batch.zones[zone.id] = zone }
        for (id, placement) in structure.placements.sorted(by: { $0.key < $1.key }) { batch.placements[id] = placement }
        for set in actionSets { batch.actionSets[set.id] = set }
        for trigger in triggers { batch.triggers[trigger.id] = trigger }
        for (id, runtime) in runtimes.sorted(by: { $0.key < $1.key }) { batch.runtimes[id] = runtime }
        batch.values = values
        return batch
    }
}

/// One Zigbee2MQTT bridge's `bridge/devices` and `bridge/groups` as last received, in the form
/// Zigbee2MQTT publishes them (only what homegate reads of them). The database keeps them as JSON
/// text (compact, keys sorted), which is what the store is handed: see `devicesText`.
public struct StoredInventory: Sendable, Equatable {
    public var baseTopic: String
    private let makeDevices: @Sendable () -> [UInt8]
    private let makeGroups: @Sendable () -> [UInt8]?
    /// The lists as values, when they came as values (read back from the database).
    private let values: (devices: JSONValue, groups: JSONValue?)?

    /// A JSON array of devices.
    public var devices: JSONValue { values?.devices ?? Self.parsed(makeDevices()) }
    /// A JSON array of groups; nil when none came.
    public var groups: JSONValue? { values.map(\.groups) ?? makeGroups().map(Self.parsed) }

    /// The device list as the database keeps it. Written when it is read, by the store writer as it
    /// writes it, not by the step that changed it; once, in a buffer of its own size, never as one
    /// `JSONValue`, which for a large house is several times the text while the tree goes out.
    public var devicesText: [UInt8] { makeDevices() }
    /// The group list as the database keeps it; nil when none came.
    public var groupsText: [UInt8]? { makeGroups() }

    public init(baseTopic: String, devices: JSONValue, groups: JSONValue?) {
        self.baseTopic = baseTopic
        makeDevices = { devices.serializedBytes() }
        makeGroups = { groups?.serializedBytes() }
        values = (devices, groups)
    }

    /// Lists written out as text when they are read (`devicesText`): with 10,000 devices that is
    /// tens of milliseconds the core does not spend.
    public init(baseTopic: String, devicesText: @escaping @Sendable () -> [UInt8], groupsText: @escaping @Sendable () -> [UInt8]?) {
        self.baseTopic = baseTopic
        makeDevices = devicesText
        makeGroups = groupsText
        values = nil
    }

    private static func parsed(_ text: [UInt8]) -> JSONValue { (try? JSONValue(parsing: text)) ?? .null }

    public static func == (a: StoredInventory, b: StoredInventory) -> Bool {
        a.baseTopic == b.baseTopic && a.devicesText == b.devicesText && a.groupsText == b.groupsText
    }
}

extension StoreBatch {
    /// What this batch would have stored, for a person reading why it was not:
    /// `rooms attic, cellar; action sets movie_night; 14 characteristic values`.
    public var summary: String {
        func ids<V>(_ changes: Changes<V>) -> [String] { changes.map(\.0) }
        var parts: [String] = []
        if replacesAll { parts.append("the whole home") }
        for (name, list) in [
            ("homes", ids(homes)), ("rooms", ids(rooms)), ("zones", ids(zones)), ("accessory placements", ids(placements)),
            ("action sets", ids(actionSets)), ("triggers", ids(triggers) + ids(runtimes).filter { !triggers.contains($0) }),
        ]
        where !list.isEmpty {
            parts.append("\(name) " + list.prefix(10).joined(separator: ", ") + (list.count > 10 ? " and \(list.count - 10) more" : ""))
        }
        if !inventories.isEmpty { parts.append("device lists of " + inventories.map(\.0).joined(separator: ", ")) }
        if !values.isEmpty { parts.append("\(values.count) characteristic values") }
        if !lastFired.isEmpty || !lastExecuted.isEmpty { parts.append("\(lastFired.count + lastExecuted.count) last-run times") }
        return parts.isEmpty ? "nothing" : parts.joined(separator: "; ")
    }
}
