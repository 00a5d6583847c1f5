import Mappings

extension Zigbee2MQTTBridge {
    /// What one placing of the bridge's devices as accessories decided. The bridge keeps it once
    /// all are placed (`keep(_:)`); until then it answers as it was, with this placing's decisions first.
    struct Placement: Sendable {
        /// Accessory ids by friendly name, for routing.
        var byFriendlyName: [String: String] = [:]
        /// The devices placed, as they are now, by IEEE address.
        var placed: [String: Zigbee2MQTTDevice] = [:]
        var skipped: [SkippedDevice] = []
        /// Accessory ids given in this placing, by IEEE address.
        fileprivate var ids: [String: String] = [:]
        fileprivate var unmappedSaid: [String: [UnmappedExpose]] = [:]

        mutating func assign(_ id: String, toDevice ieeeAddress: String) { ids[ieeeAddress] = id }
    }

    /// Members of groups whose override says hide_members, by IEEE address, with the name of the
    /// group they are shown through.
    func hiddenMembers(of devices: [Zigbee2MQTTDevice]) -> [String: String] {
        var hiddenBy: [String: String] = [:]
        for group in groups {
            guard let device = group.asDevice(devices), source.override(for: device).hideMembers else { continue }
            for member in group.members where hiddenBy[member.ieeeAddress] == nil { hiddenBy[member.ieeeAddress] = group.friendlyName }
        }
        return hiddenBy
    }

    /// The accessory id a device (or a group, by its key) has had, so that a rename keeps it.
    func accessoryID(ofDevice ieeeAddress: String, in placement: Placement) -> String? {
        placement.ids[ieeeAddress] ?? idByIEEE[ieeeAddress]
    }

    /// The accessory of a device that is as it was when the accessory was built with the mapping
    /// files loaded now: built again it would be the same. The later of a list that has one
    /// address twice is built.
    func unchangedAccessory(_ device: Zigbee2MQTTDevice, in placement: Placement) -> String? {
        guard placed[device.ieeeAddress] == device, placement.placed[device.ieeeAddress] == nil else { return nil }
        return accessoryID(ofDevice: device.ieeeAddress, in: placement)
    }

    /// Whether a device's unmapped exposes are worth saying: they changed since last said, and are some.
    func unmappedNews(_ unmapped: [UnmappedExpose], ofDevice ieeeAddress: String, in placement: inout Placement) -> Bool {
        guard (placement.unmappedSaid[ieeeAddress] ?? unmappedSaid[ieeeAddress]) != unmapped else { return false }
        placement.unmappedSaid[ieeeAddress] = unmapped
        return !unmapped.isEmpty
    }

    /// Keeps what a placing decided; returns the devices and groups newly without an accessory.
    mutating func keep(_ placement: Placement) -> [SkippedDevice] {
        let newlySkipped = placement.skipped.filter { !skipped.contains($0) }
        skipped = placement.skipped
        byFriendlyName = placement.byFriendlyName
        placed = placement.placed
        idByIEEE.merge(placement.ids) { _, new in new }
        unmappedSaid.merge(placement.unmappedSaid) { _, new in new }
        return newlySkipped
    }
}
