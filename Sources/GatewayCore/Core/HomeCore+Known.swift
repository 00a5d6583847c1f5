import Mappings

/// The house as it was known at the last run: each Zigbee2MQTT bridge's device and group lists are
/// kept in the database when they change, and at start the bridge's accessories are placed from
/// them before anything comes from the broker. They are the same accessories (the same ids, so the
/// HomeKit bridge's aids and iids hold), with the stored values, unreachable as "not heard from
/// since start" until the bridge or the device speaks. After a power cut the broker is empty for
/// a while: without this, every front end would see an empty house, and HomeKit would delete the
/// accessories with their rooms, scenes and automations.
extension HomeCore {
    /// Places the accessories of each configured bridge from its stored lists (at start, once).
    mutating func placeKnown(_ inventories: [StoredInventory]) {
        for inventory in inventories where bridges[inventory.baseTopic] != nil {
            let base = inventory.baseTopic
            guard case let (devices, groups)? = Zigbee2MQTTInventory.lists(inventory) else {
                notice(
                    .warning, .devices, "the device list of Zigbee2MQTT bridge \(base) cannot be read; its accessories wait for the broker")
                continue
            }
            bridges.update(base) { $0.restore(devices: devices, groups: groups) }
            rebuild(bridge: base, requestState: false)
            let count = bridges[base]?.accessories.count ?? 0
            notice(
                .info, .devices,
                "\(base): \(count) accessories placed from the device list stored at the last run; "
                    + "unreachable (\(Self.notHeardReason)) until the bridge speaks")
        }
    }

    /// A bridge's friendly names with more than one topic level, whose topics the main connection
    /// subscribes to one by one when the device lists come on a connection of their own.
    public func multiLevelNames(bridge base: String) -> [String] { bridges[base]?.multiLevelNames ?? [] }

    /// Whether every Zigbee2MQTT bridge has sent its device list since the start: until then the
    /// house may be as stored rather than as it is.
    public var inventoriesHeard: Bool { bridges.inventoriesHeard }

    /// The lists of the bridges whose lists changed in this step, for the store.
    mutating func collectInventories() {
        for base in step.inventoriesChanged.sorted() {
            if let inventory = storedInventory(base) { store.inventories[base] = inventory }
        }
        step.inventoriesChanged = []
    }

    /// A bridge's lists as the database keeps them; nil before its device list is known.
    func storedInventory(_ base: String) -> StoredInventory? {
        guard let bridge = bridges[base], let devices = bridge.devices else { return nil }
        return Zigbee2MQTTInventory.stored(base: base, devices: devices, groups: bridge.groupsKnown ? bridge.groups : nil)
    }
}
