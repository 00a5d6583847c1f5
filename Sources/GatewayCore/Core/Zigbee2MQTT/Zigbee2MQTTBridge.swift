import Mappings

/// What the gateway knows of one Zigbee2MQTT bridge: its device and group lists as last published,
/// which accessory each device is, and what was already said about them. The core asks it where a
/// device's messages go and keeps the accessories themselves; the bridge keeps no accessory.
struct Zigbee2MQTTBridge: Sendable {
    var source: Zigbee2MQTTSource
    private(set) var online = true
    /// The last `bridge/devices` payload, kept to rebuild on a mapping reload; nil until one came.
    var devices: [Zigbee2MQTTDevice]?
    /// The last `bridge/groups` payload.
    private(set) var groups: [Zigbee2MQTTGroup] = []
    /// Whether a `bridge/groups` payload came at all.
    private(set) var groupsKnown = false
    /// Availability of group members by IEEE address, for the groups' reachability.
    var memberOnline: [String: Bool] = [:]
    /// Accessory ids by friendly name, for routing state topics.
    var byFriendlyName: [String: String] = [:]
    /// Accessory ids by IEEE address (a group's by its key): a rename in Zigbee2MQTT keeps the id.
    var idByIEEE: [String: String] = [:]
    /// Why devices and groups have no accessory, as the last placing found.
    var skipped: [SkippedDevice] = []
    /// What was last said about each device's unmapped exposes, by IEEE address: said again only when it changes.
    var unmappedSaid: [String: [UnmappedExpose]] = [:]
    /// Each device as it was when its accessory was last built, by IEEE address, for the mapping
    /// files loaded now: one the same in the next list need not be built again.
    var placed: [String: Zigbee2MQTTDevice] = [:]
    /// Override keys already warned about for matching no device: each is said once.
    var unmatchedWarned: Set<String> = []
    /// Whether the "nothing answers on this base topic" warning was given.
    var silenceWarned = false
    /// Whether anything came from the bridge since the start (its state, a list): until then the
    /// accessories placed from its stored lists are not reachable.
    var heard = false
    /// Whether its device list came since the start: until every bridge's has, the house may still
    /// be as stored rather than as it is, and the HomeKit bridge does not change `c#`.
    var inventoryHeard = false
    /// What came for friendly names no accessory has, the last of each, until a list names them
    /// (`Zigbee2MQTTBridge+Waiting.swift`).
    var waiting: [String: Waiting] = [:]
    /// The accessories of the devices the last device list renamed, by their former friendly names.
    var formerNames: [String: String] = [:]

    init(source: Zigbee2MQTTSource) {
        self.source = source
    }

    var baseTopic: String { source.baseTopic }

    /// The accessory a device's or group's messages (`<base>/<friendly name>`) are for.
    /// A device renamed by the last list is found by its former name too, for a report sent before
    /// the rename and read after the list (which comes on a connection of its own).
    func accessory(named friendlyName: String) -> String? { byFriendlyName[friendlyName] ?? formerNames[friendlyName] }

    /// Whether both lists came, so that what is not in them is gone rather than not yet known.
    var listsKnown: Bool { devices != nil && groupsKnown }

    /// The scenes the devices (by IEEE address) and groups (by key) keep.
    var scenes: [String: [Zigbee2MQTTScene]] {
        var byKey: [String: [Zigbee2MQTTScene]] = [:]
        for device in devices ?? [] where !device.scenes.isEmpty { byKey[device.ieeeAddress] = device.scenes }
        for group in groups where !group.scenes.isEmpty { byKey[group.key] = group.scenes }
        return byKey
    }

    /// `bridge/state`; returns whether it was online before.
    mutating func setOnline(_ online: Bool) -> Bool {
        heard = true
        defer { self.online = online }
        return self.online
    }

    /// The lists as stored at the last run, taken before anything comes from the broker.
    mutating func restore(devices: [Zigbee2MQTTDevice], groups: [Zigbee2MQTTGroup]?) {
        self.devices = devices
        if let groups {
            self.groups = groups
            groupsKnown = true
        }
    }

    /// `bridge/groups`; returns whether they differ from what was known (the first list always does).
    /// An offline bridge's list keeps the groups it leaves out: only an online bridge removes one.
    mutating func takeGroups(_ groups: [Zigbee2MQTTGroup]) -> Bool {
        heard = true
        var groups = groups
        if !online {
            let listed = Set(groups.map(\.id))
            groups += self.groups.filter { !listed.contains($0.id) }
        }
        guard groups != self.groups || !groupsKnown else { return false }
        self.groups = groups
        groupsKnown = true
        return true
    }

    /// A new mapping reload: the overrides may have changed, so no device counts as placed as it was.
    mutating func reload(_ source: Zigbee2MQTTSource) {
        self.source = source
        placed = [:]
    }
}
