import HomeModel
import Mappings

extension Zigbee2MQTTBridge {
    /// What a new device list means for the core, once the bridge has taken it.
    struct DeviceListChange: Sendable {
        /// The first list since the start: its devices are news as a whole, not one by one.
        var first: Bool
        /// The accessories of the bridge before the list, to tell which joined and which left.
        var accessoriesBefore: Set<String>
        /// Overrides the list leaves without a device, each said once.
        var warnings: [String]
        /// Devices an offline bridge's list left out, kept (by friendly name).
        var keptWhileOffline: [String] = []
    }

    /// The bridge's accessories, as the last placing found them.
    var accessories: Set<String> { Set(byFriendlyName.values) }

    /// `bridge/devices`: kept when it differs from the last (nil when it does not: the broker
    /// replays the list on every reconnect, and Zigbee2MQTT publishes it again on a restart).
    /// Only an online bridge's list removes a device: one an offline bridge leaves out is kept
    /// (a retained list from before a device was re-paired, a bridge starting up).
    mutating func takeDevices(_ devices: [Zigbee2MQTTDevice]) -> DeviceListChange? {
        heard = true
        inventoryHeard = true
        var devices = devices
        var kept: [String] = []
        if !online, let old = self.devices {
            let listed = Set(devices.map(\.ieeeAddress))
            let missing = old.filter { !listed.contains($0.ieeeAddress) }
            devices += missing
            kept = missing.map(\.friendlyName)
        }
        guard self.devices != devices else { return nil }
        let first = self.devices == nil
        let before = accessories
        var warnings = renameWarnings(from: self.devices ?? [], to: devices)
        self.devices = devices
        warnings += unmatchedOverrideWarnings(devices)
        return DeviceListChange(first: first, accessoriesBefore: before, warnings: warnings, keptWhileOffline: kept)
    }

    /// A device renamed in Zigbee2MQTT whose override is keyed by its old friendly name loses it.
    private mutating func renameWarnings(from old: [Zigbee2MQTTDevice], to new: [Zigbee2MQTTDevice]) -> [String] {
        let oldNames = Dictionary(old.map { ($0.ieeeAddress, $0.friendlyName) }, uniquingKeysWith: { a, _ in a })
        var warnings: [String] = []
        for device in new {
            guard let was = oldNames[device.ieeeAddress], was != device.friendlyName, source.devices[was] != nil,
                source.devices[device.ieeeAddress] == nil, source.devices[device.friendlyName] == nil
            else { continue }
            unmatchedWarned.insert(was)
            warnings.append(
                "\(source.baseTopic): '\(was)' was renamed to '\(device.friendlyName)' in Zigbee2MQTT; its override in \(source.file) "
                    + "is keyed by the old name and no longer applies: key it by its IEEE address \(device.ieeeAddress), which does not change"
            )
        }
        return warnings
    }

    /// An override keyed by a friendly name that no device has (a typo, a device renamed since):
    /// said once per key, with the closest name on the bridge.
    private mutating func unmatchedOverrideWarnings(_ devices: [Zigbee2MQTTDevice]) -> [String] {
        let keys = Set(devices.map(\.friendlyName) + devices.map(\.ieeeAddress))
        var warnings: [String] = []
        for key in source.devices.keys.sorted() where !keys.contains(key) && !unmatchedWarned.contains(key) {
            unmatchedWarned.insert(key)
            warnings.append(
                "\(source.file): the override '\(key)' matches no device on \(source.baseTopic)\(didYouMean(key, devices.map(\.friendlyName))); "
                    + "it does nothing until a device has that friendly name or IEEE address")
        }
        return warnings
    }

    /// A base topic nothing answers on (a typo, or Zigbee2MQTT's own base_topic is another): the
    /// warning, once, while no device list has come.
    mutating func silenceWarning(after seconds: Int) -> String? {
        guard !inventoryHeard, !silenceWarned else { return nil }
        silenceWarned = true
        return "\(source.file): nothing answers on base_topic '\(source.baseTopic)': no \(source.baseTopic)/bridge/devices in "
            + "\(seconds) s. Check that it is Zigbee2MQTT's base_topic, and that Zigbee2MQTT runs on this broker"
    }
}
