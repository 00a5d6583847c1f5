import HomeModel
import Mappings

extension HomeCore {
    /// What placing a bridge's devices gathers, for `rebuild` to act on once all are placed.
    struct Placing {
        /// What the bridge keeps of it: routing, placements, skipped devices, ids given.
        var bridge = Zigbee2MQTTBridge.Placement()
        /// The accessories placed.
        var seen: Set<String> = []
        var rules: RuleSets = [:]
        /// What is not shown, with the devices it is not shown for, in the order first met.
        private(set) var notShown: [(text: String, devices: [String])] = []
        private var notShownIndex: [String: Int] = [:]

        mutating func add(notShown text: String, device: String) {
            if let index = notShownIndex[text] { return notShown[index].devices.append(device) }
            notShownIndex[text] = notShown.count
            notShown.append((text, [device]))
        }
    }

    /// The rules built so far in a rebuild, by vendor and model: a device whose rules are the same
    /// as an earlier one's shares their storage (`Zigbee2MQTTMapping.shareRules`).
    typealias RuleSets = [String: [Zigbee2MQTTMapping]]

    /// Builds the bridge's accessories from its last device list and the current overrides.
    mutating func rebuild(bridge base: String, requestState: Bool) {
        guard let (placing, source) = placeDevices(of: base, requestState: requestState) else { return }
        for id in table.ids(ofBridge: base) where !placing.seen.contains(id) { remove(id) }
        reclaimNames()
        for reason in bridges.update(base, { $0.keep(placing.bridge) }) ?? [] {
            notice(
                reason.needsAttention ? .warning : .info, .devices,
                "no accessory for \(source.baseTopic) \(reason.isGroup ? "group" : "device") \(reason)")
        }
        // Said once for all the devices that leave the same out (a house's 80 bulbs of one model).
        for (text, names) in placing.notShown {
            notice(.info, .devices, "\(source.baseTopic) device\(names.count == 1 ? "" : "s") \(Self.listed(names)): not shown: \(text)")
        }
        step.scenesStale = true  // the tree changed with each accessory that did (insert, remove)
    }

    /// Places every device and group of the bridge's last lists; nil when there is no such bridge,
    /// or no list yet. The bridge is read, not changed, meanwhile: what the placing decided is for
    /// it to keep after, and a copy of it held while it changed would copy its tables.
    private mutating func placeDevices(of base: String, requestState: Bool) -> (Placing, Zigbee2MQTTSource)? {
        guard let bridge = bridges[base], let devices = bridge.devices else { return nil }
        var placing = Placing()
        // Members of a group whose override says hide_members are shown through the group alone.
        let hiddenBy = bridge.hiddenMembers(of: devices)
        for device in devices {
            if let group = hiddenBy[device.ieeeAddress] {
                placing.bridge.skipped.append(
                    SkippedDevice(device: device.friendlyName, reason: "shown through its group \(group) (hide_members)"))
                continue
            }
            place(device, online: nil, bridge, requestState: requestState, &placing)
        }
        for group in bridge.groups {
            guard let device = group.asDevice(devices) else {
                placing.bridge.skipped.append(
                    SkippedDevice(
                        device: "\(group.friendlyName) (id \(group.id))",
                        reason: group.members.isEmpty
                            ? "it has no members" : "its members share no light, switch, cover, lock, thermostat or fan",
                        isGroup: true))
                continue
            }
            place(device, online: bridge.groupOnline(group), bridge, requestState: requestState, &placing)
        }
        return (placing, bridge.source)
    }

    /// One device (or group, as a device) of the bridge as an accessory, or the reason it is none.
    /// `online`: a group's reachability from its members; a device keeps what its availability said.
    private mutating func place(
        _ device: Zigbee2MQTTDevice, online: Bool?, _ bridge: Zigbee2MQTTBridge, requestState: Bool, _ placing: inout Placing
    ) {
        let base = bridge.baseTopic
        if online == nil, let (id, kept) = placedAsIs(device, bridge, placing) {
            var mapping = kept
            share(&mapping, device, &placing)  // for the devices of its model built after it
            placing.seen.insert(id)
            placing.bridge.byFriendlyName[device.friendlyName] = id
            placing.bridge.placed[device.ieeeAddress] = device
            return
        }
        let knownID = bridge.accessoryID(ofDevice: device.ieeeAddress, in: placing.bridge)
        var mapping: Zigbee2MQTTMapping
        switch Zigbee2MQTTMapping.build(device, override: bridge.source.override(for: device), id: knownID, bridge: base) {
        case .failure(let reason):
            return placing.bridge.skipped.append(reason)
        case .success(let built):
            mapping = built
        }
        share(&mapping, device, &placing)
        if online == nil { placing.bridge.placed[device.ieeeAddress] = device }
        var id = mapping.accessory.id
        if knownID == nil, table[id].map({ !isSameDevice($0, device) }) == true {
            id = Naming.unique(id: id) { table[$0] != nil }  // two names that collapse to one id, or a group named like a device
            mapping = rebuilt(mapping, id: id)
        }
        placing.bridge.assign(id, toDevice: device.ieeeAddress)
        if bridge.unmappedNews(mapping.unmapped, ofDevice: device.ieeeAddress, in: &placing.bridge) {
            placing.add(notShown: mapping.unmapped.map(\.description).joined(separator: ", "), device: device.friendlyName)
        }
        placing.seen.insert(id)
        placing.bridge.byFriendlyName[device.friendlyName] = id
        var accessory = mapping.accessory
        // The entry's accessory has the services from here on; left in the mapping as well, they
        // would be copied whole at the accessory's first change and both kept.
        mapping.accessory.services = []
        let old = table[id]
        if let old { AccessoryTable.carryValues(from: old.accessory, into: &accessory) }
        let deviceOnline = online ?? old?.deviceOnline ?? true
        let heard = old?.heard ?? bridge.heard
        let reason: String?
        (accessory.reachable, reason) = Self.reachability(heard: heard, bridgeOnline: bridge.online, deviceOnline: deviceOnline)
        accessory.unreachableReason = reason
        insert(Entry(accessory: accessory, source: .zigbee2mqtt(bridge: base, mapping: mapping), deviceOnline: deviceOnline, heard: heard))
        if requestState, old == nil, !mapping.gettableKeys.isEmpty {
            table.queueRequest(AccessoryTable.getRequest(mapping, base: base))
        }
    }

    /// The accessory of a device that is as it was when the accessory was built, with the same
    /// mapping files, and still stands where it was placed then: built again it would be the same,
    /// so it is left as it is (a name freed meanwhile is taken after, by `reclaimNames`). A device
    /// list changes one device at a time (a join, a rename), and each device built again costs tens
    /// of microseconds: with a thousand, most of the list's.
    private func placedAsIs(
        _ device: Zigbee2MQTTDevice, _ bridge: Zigbee2MQTTBridge, _ placing: Placing
    ) -> (id: String, mapping: Zigbee2MQTTMapping)? {
        guard let id = bridge.unchangedAccessory(device, in: placing.bridge), let entry = table[id],
            case .zigbee2mqtt(bridge.baseTopic, let mapping) = entry.source,
            mapping.ieeeAddress == device.ieeeAddress, mapping.friendlyName == device.friendlyName,
            let placement = layout.structure.placements[id], layout.structure.room(id: placement.room) != nil,
            placement.requested == mapping.accessory.requestedRoom
        else { return nil }
        return (id, mapping)
    }

    /// A few different rule sets per model at most (overrides, firmware): past that a device keeps its own.
    private func share(_ mapping: inout Zigbee2MQTTMapping, _ device: Zigbee2MQTTDevice, _ placing: inout Placing) {
        let model = "\(device.vendor ?? "")/\(device.model ?? "")"
        if !(placing.rules[model] ?? []).contains(where: { mapping.shareRules(with: $0) }), placing.rules[model, default: []].count < 8 {
            placing.rules[model, default: []].append(mapping)
        }
    }

    private func isSameDevice(_ entry: Entry, _ device: Zigbee2MQTTDevice) -> Bool {
        if case .zigbee2mqtt(_, let mapping) = entry.source { return mapping.ieeeAddress == device.ieeeAddress }
        return false
    }

    private func rebuilt(_ mapping: Zigbee2MQTTMapping, id: String) -> Zigbee2MQTTMapping {
        var copy = mapping
        let a = mapping.accessory
        copy.accessory = Accessory(
            id: id, name: a.name, manufacturer: a.manufacturer, model: a.model, firmware: a.firmware,
            category: a.category, reachable: a.reachable, bridge: a.bridge, requestedRoom: a.requestedRoom, services: a.services)
        return copy
    }

    /// `a`, `a and b`, `a, b and c`; past three names, `a, b, c and 77 more`.
    static func listed(_ names: [String]) -> String {
        if names.count < 2 { return names.first ?? "" }
        if names.count > 3 { return names.prefix(3).joined(separator: ", ") + " and \(names.count - 3) more" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}
