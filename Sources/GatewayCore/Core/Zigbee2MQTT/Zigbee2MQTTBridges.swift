import Mappings

/// The Zigbee2MQTT bridges of the mapping files, by base topic. A message for a base topic no
/// mapping file names (or one removed by a reload) finds no bridge, and is left alone.
struct Zigbee2MQTTBridges: Sendable {
    private var byBase: [String: Zigbee2MQTTBridge] = [:]

    init(_ sources: [Zigbee2MQTTSource]) {
        for source in sources { byBase[source.baseTopic] = Zigbee2MQTTBridge(source: source) }
    }

    subscript(base: String) -> Zigbee2MQTTBridge? { byBase[base] }

    /// The base topics, in order, for work done bridge by bridge.
    var baseTopics: [String] { byBase.keys.sorted() }

    /// The accessory a device's (or group's) messages on `<base>/<friendly name>` are for.
    func accessory(named friendlyName: String, on base: String) -> String? { byBase[base]?.accessory(named: friendlyName) }

    /// Changes one bridge in place; nil when there is no such bridge.
    mutating func update<T>(_ base: String, _ change: (inout Zigbee2MQTTBridge) throws -> T) rethrows -> T? {
        guard let index = byBase.index(forKey: base) else { return nil }
        return try change(&byBase.values[index])
    }

    /// Whether every bridge has sent both its lists: until then a device not in them may yet come.
    var listsKnown: Bool { byBase.values.allSatisfy(\.listsKnown) }

    /// Whether every bridge has sent its device list since the start.
    var inventoriesHeard: Bool { byBase.values.allSatisfy(\.inventoryHeard) }

    /// The scenes each bridge's devices and groups keep, by base topic and then by IEEE address or group key.
    var scenes: [String: [String: [Zigbee2MQTTScene]]] { byBase.mapValues(\.scenes) }

    /// Edited mapping files: a bridge that stays keeps what it knows about its devices, but every
    /// device is to be built again (its overrides may have changed); one no file names is gone.
    mutating func reload(_ sources: [Zigbee2MQTTSource]) {
        var kept: [String: Zigbee2MQTTBridge] = [:]
        for source in sources {
            var bridge = byBase[source.baseTopic] ?? Zigbee2MQTTBridge(source: source)
            bridge.reload(source)
            kept[source.baseTopic] = bridge
        }
        byBase = kept
    }
}
