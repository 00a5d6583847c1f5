import HomeModel
import Mappings

extension Zigbee2MQTTBridge {
    /// A device whose friendly name a list changed.
    struct Rename: Sendable {
        var was: String
        var ieeeAddress: String
        var name: String
    }

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
        /// Devices whose friendly name changed: the name before, and the IEEE address.
        var renamed: [Rename] = []
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
        guard self.devices != devices else {
            // The same devices: the list reader's storage, so that the one read from the database goes.
            self.devices = devices
            return nil
        }
        let first = self.devices == nil
        let before = accessories
        let renamed = Self.renames(from: self.devices ?? [], to: devices)
        var warnings = renameWarnings(renamed)
        self.devices = devices
        warnings += unmatchedOverrideWarnings(devices)
        return DeviceListChange(first: first, accessoriesBefore: before, warnings: warnings, keptWhileOffline: kept, renamed: renamed)
    }

    /// The names renamed devices had, until the next list: a report under an old name read after
    /// the list that renamed its device still lands on its accessory (unless another device has the name now).
    mutating func keepFormerNames(_ renamed: [Rename]) {
        formerNames = [:]
        for rename in renamed where byFriendlyName[rename.was] == nil {
            if let id = idByIEEE[rename.ieeeAddress] { formerNames[rename.was] = id }
        }
    }

    /// The devices of `new` whose friendly name differs from `old`'s, with the name before.
    private static func renames(from old: [Zigbee2MQTTDevice], to new: [Zigbee2MQTTDevice]) -> [Rename] {
        // A list changes a device or two at a time: in step with the last, one comparison a device.
        if old.count == new.count, zip(old, new).allSatisfy({ $0.ieeeAddress == $1.ieeeAddress }) {
            return zip(old, new).compactMap {
                $0.friendlyName == $1.friendlyName ? nil : Rename(was: $0.friendlyName, ieeeAddress: $1.ieeeAddress, name: $1.friendlyName)
            }
        }
        let oldNames = Dictionary(old.map { ($0.ieeeAddress, $0.friendlyName) }, uniquingKeysWith: { a, _ in a })
        return new.compactMap { device in
            guard let was = oldNames[device.ieeeAddress], was != device.friendlyName else { return nil }
            return Rename(was: was, ieeeAddress: device.ieeeAddress, name: device.friendlyName)
        }
    }

    /// A device renamed in Zigbee2MQTT whose override is keyed by its old friendly name loses it.
    private mutating func renameWarnings(_ renamed: [Rename]) -> [String] {
        var warnings: [String] = []
        for rename in renamed {
            let (was, device) = (rename.was, (ieeeAddress: rename.ieeeAddress, friendlyName: rename.name))
            guard source.devices[was] != nil, source.devices[device.ieeeAddress] == nil, source.devices[device.friendlyName] == nil
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
        guard !source.devices.isEmpty else { return [] }  // no set of every name and address for nothing
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
