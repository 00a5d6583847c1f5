import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// `<base>/<device>`: a device's (or group's) state report, for an accessory.
    mutating func reported(_ name: String, topic: String, _ payload: [UInt8], bridge base: String, seen: Bool) {
        // Only the mapping is taken out: a copy of the whole entry would share the accessory's storage,
        // and apply's update would then copy every service of the accessory for each reading.
        guard let id = bridges[base]?.byFriendlyName[name], case .zigbee2mqtt(_, let mapping)? = entries[id]?.source else { return }
        if seen { entries[id]!.lastSeen = now }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: payload)
        } catch {
            counters.invalid += 1
            notice(.warning, .devices, "\(topic): not JSON: \(error)")
            return
        }
        let (updates, errors) = mapping.decode(json)
        for problem in errors {
            counters.invalid += 1
            notice(.warning, .devices, "\(topic): \(problem)")
        }
        apply(updates, to: id, origin: topic)
    }

    /// `bridge/devices`: new devices appear, removed ones go, renamed ones keep their id. The list
    /// as it was is nothing: Zigbee2MQTT publishes it again on a restart, and the broker replays
    /// it on every reconnect; the home built from it would be the same, and rebuilt it would
    /// publish every accessory's state and the whole tree again.
    mutating func devicesChanged(_ devices: [Zigbee2MQTTDevice], bridge base: String) {
        guard bridges[base] != nil, bridges[base]!.devices != devices else { return }
        let first = bridges[base]!.devices == nil
        let before = Set(bridges[base]!.byFriendlyName.values)
        warnAboutRenames(from: bridges[base]!.devices ?? [], to: devices, bridge: base)
        bridges[base]!.devices = devices
        warnAboutUnmatchedOverrides(devices, bridge: base)
        rebuild(bridge: base, requestState: true)
        let after = Set(bridges[base]!.byFriendlyName.values)
        if first {
            notice(.info, .devices, "\(base): \(devices.count) devices, \(after.count) of them accessories")
        } else {
            for id in after.subtracting(before).sorted() { notice(.info, .devices, "\(base): a device joined: accessory \(id)") }
            for id in before.subtracting(after).sorted() { notice(.info, .devices, "\(base): a device left: accessory \(id) is gone") }
        }
    }

    /// Builds the bridge's accessories from its last device list and the current overrides.
    mutating func rebuild(bridge base: String, requestState: Bool) {
        guard let devices = bridges[base]!.devices else { return }
        let source = bridges[base]!.source
        var placing = Placing()
        // Members of a group whose override says hide_members are shown through the group alone.
        var hiddenBy: [String: String] = [:]
        for group in bridges[base]!.groups {
            guard let device = group.asDevice(devices), source.override(for: device).hideMembers else { continue }
            for member in group.members where hiddenBy[member.ieeeAddress] == nil { hiddenBy[member.ieeeAddress] = group.friendlyName }
        }
        for device in devices {
            if let group = hiddenBy[device.ieeeAddress] {
                placing.skipped.append(
                    SkippedDevice(device: device.friendlyName, reason: "shown through its group \(group) (hide_members)"))
                continue
            }
            place(device, online: nil, bridge: base, requestState: requestState, &placing)
        }
        for group in bridges[base]!.groups {
            guard let device = group.asDevice(devices) else {
                placing.skipped.append(
                    SkippedDevice(
                        device: "\(group.friendlyName) (id \(group.id))",
                        reason: group.members.isEmpty
                            ? "it has no members" : "its members share no light, switch, cover, lock, thermostat or fan",
                        isGroup: true))
                continue
            }
            place(device, online: groupOnline(group, bridge: base), bridge: base, requestState: requestState, &placing)
        }
        for (id, entry) in entries where !placing.seen.contains(id) {
            if case .zigbee2mqtt(let b, _) = entry.source, b == base { remove(id) }
        }
        reclaimNames()
        let newlySkipped = placing.skipped.filter { !bridges[base]!.skipped.contains($0) }
        for reason in newlySkipped {
            notice(
                reason.needsAttention ? .warning : .info, .devices,
                "no accessory for \(source.baseTopic) \(reason.isGroup ? "group" : "device") \(reason)")
        }
        // Said once for all the devices that leave the same out (a house's 80 bulbs of one model).
        for (text, names) in placing.notShown {
            notice(.info, .devices, "\(source.baseTopic) device\(names.count == 1 ? "" : "s") \(Self.listed(names)): not shown: \(text)")
        }
        bridges[base]!.skipped = placing.skipped
        bridges[base]!.byFriendlyName = placing.byName
        bridges[base]!.placed = placing.placed
        step.scenesStale = true  // the tree changed with each accessory that did (insert, remove)
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

    /// `<base>/<device>/get` for every key the device can be asked for.
    func getRequest(_ mapping: Zigbee2MQTTMapping, base: String) -> DeviceCommand {
        let body = JSONValue.object(Dictionary(mapping.gettableKeys.map { ($0, JSONValue.string("")) }, uniquingKeysWith: { a, _ in a }))
        return .zigbee2mqtt(bridge: base, device: mapping.friendlyName, endpoint: nil, .get, body)
    }

    mutating func availabilityChanged(_ name: String, _ said: Bool?, bridge base: String) {
        guard bridges[base] != nil else { return }
        let id = bridges[base]!.byFriendlyName[name].flatMap { entries[$0] == nil ? nil : $0 }
        // A member hidden behind its group has no accessory, but its availability still counts for the group.
        let ieee = bridges[base]!.groups.isEmpty ? nil : bridges[base]!.devices?.first { $0.friendlyName == name }?.ieeeAddress
        guard id != nil || ieee != nil else { return }
        guard let online = said else {
            counters.invalid += 1
            notice(.warning, .devices, "\(base)/\(name)/availability: expected online or offline")
            return
        }
        if let id {
            entries[id]!.deviceOnline = online
            setReachable(id, online && bridges[base]!.online)
        }
        guard let ieee else { return }
        bridges[base]!.memberOnline[ieee] = online
        // A group is reachable while any of its members is.
        for group in bridges[base]!.groups where group.members.contains(where: { $0.ieeeAddress == ieee }) {
            guard let groupID = bridges[base]!.idByIEEE[group.key], entries[groupID] != nil else { continue }
            let any = groupOnline(group, bridge: base)
            entries[groupID]!.deviceOnline = any
            setReachable(groupID, any && bridges[base]!.online)
        }
    }

    /// The rules built so far in a rebuild, by vendor and model: a device whose rules are the same
    /// as an earlier one's shares their storage (`Zigbee2MQTTMapping.shareRules`).
    typealias RuleSets = [String: [Zigbee2MQTTMapping]]

    /// One device (or group, as a device) of the bridge as an accessory, or the reason it is none.
    /// `online`: a group's reachability from its members; a device keeps what its availability said.
    private mutating func place(
        _ device: Zigbee2MQTTDevice, online: Bool?, bridge base: String, requestState: Bool, _ placing: inout Placing
    ) {
        if online == nil, let (id, kept) = placedAsIs(device, bridge: base, placing) {
            var mapping = kept
            share(&mapping, device, &placing)  // for the devices of its model built after it
            placing.seen.insert(id)
            placing.byName[device.friendlyName] = id
            placing.placed[device.ieeeAddress] = device
            return
        }
        let source = bridges[base]!.source
        let knownID = bridges[base]!.idByIEEE[device.ieeeAddress]
        var mapping: Zigbee2MQTTMapping
        switch Zigbee2MQTTMapping.build(device, override: source.override(for: device), id: knownID, bridge: source.baseTopic) {
        case .failure(let reason):
            return placing.skipped.append(reason)
        case .success(let built):
            mapping = built
        }
        share(&mapping, device, &placing)
        if online == nil { placing.placed[device.ieeeAddress] = device }
        var id = mapping.accessory.id
        if knownID == nil, entries[id].map({ !isSameDevice($0, device) }) == true {
            id = Naming.unique(id: id) { entries[$0] != nil }  // two names that collapse to one id, or a group named like a device
            mapping = rebuilt(mapping, id: id)
        }
        bridges[base]!.idByIEEE[device.ieeeAddress] = id
        if bridges[base]!.unmappedSaid[device.ieeeAddress] != mapping.unmapped {
            bridges[base]!.unmappedSaid[device.ieeeAddress] = mapping.unmapped
            if !mapping.unmapped.isEmpty {
                placing.add(notShown: mapping.unmapped.map(\.description).joined(separator: ", "), device: device.friendlyName)
            }
        }
        placing.seen.insert(id)
        placing.byName[device.friendlyName] = id
        var accessory = mapping.accessory
        // The entry's accessory has the services from here on; left in the mapping as well, they
        // would be copied whole at the accessory's first change and both kept.
        mapping.accessory.services = []
        let old = entries[id]
        if let old { Self.carryValues(from: old.accessory, into: &accessory) }
        let deviceOnline = online ?? old?.deviceOnline ?? true
        accessory.reachable = bridges[base]!.online && deviceOnline
        insert(Entry(accessory: accessory, source: .zigbee2mqtt(bridge: base, mapping: mapping), deviceOnline: deviceOnline))
        if requestState, old == nil, !mapping.gettableKeys.isEmpty {
            refreshQueue.append(getRequest(mapping, base: source.baseTopic))
        }
    }

    /// The accessory of a device that is as it was when the accessory was built, with the same
    /// mapping files, and still stands where it was placed then: built again it would be the same,
    /// so it is left as it is (a name freed meanwhile is taken after, by `reclaimNames`). A device
    /// list changes one device at a time (a join, a rename), and each device built again costs tens
    /// of microseconds: with a thousand, most of the list's.
    private func placedAsIs(
        _ device: Zigbee2MQTTDevice, bridge base: String, _ placing: Placing
    ) -> (id: String, mapping: Zigbee2MQTTMapping)? {
        guard bridges[base]!.placed[device.ieeeAddress] == device,
            placing.placed[device.ieeeAddress] == nil,  // a list that has one address twice: the later is built
            let id = bridges[base]!.idByIEEE[device.ieeeAddress], let entry = entries[id],
            case .zigbee2mqtt(base, let mapping) = entry.source,
            mapping.ieeeAddress == device.ieeeAddress, mapping.friendlyName == device.friendlyName,
            let placement = structure.placements[id], structure.room(id: placement.room) != nil,
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

    /// Whether any member of the group is online (a group without known members counts as online).
    func groupOnline(_ group: Zigbee2MQTTGroup, bridge base: String) -> Bool {
        group.members.isEmpty || group.members.contains { bridges[base]!.memberOnline[$0.ieeeAddress] ?? true }
    }

    /// `bridge/groups`: a group of devices that share a light, switch, cover, lock, thermostat or fan
    /// becomes an accessory of its own; its writes go to `<base>/<group>/set`.
    mutating func groupsChanged(_ groups: [Zigbee2MQTTGroup], bridge base: String) {
        guard let bridge = bridges[base], groups != bridge.groups || !bridge.groupsKnown else { return }
        guard groups != bridges[base]!.groups || !bridges[base]!.groupsKnown else { return }
        bridges[base]!.groups = groups
        bridges[base]!.groupsKnown = true
        rebuild(bridge: base, requestState: true)
    }

    /// An override keyed by a friendly name that no device has (a typo, a device renamed since):
    /// said once per key, with the closest name on the bridge.
    mutating func warnAboutUnmatchedOverrides(_ devices: [Zigbee2MQTTDevice], bridge base: String) {
        let source = bridges[base]!.source
        let keys = Set(devices.map(\.friendlyName) + devices.map(\.ieeeAddress))
        for key in source.devices.keys.sorted() where !keys.contains(key) && !bridges[base]!.unmatchedWarned.contains(key) {
            bridges[base]!.unmatchedWarned.insert(key)
            notice(
                .warning, .mappings,
                "\(source.file): the override '\(key)' matches no device on \(source.baseTopic)\(didYouMean(key, devices.map(\.friendlyName))); "
                    + "it does nothing until a device has that friendly name or IEEE address")
        }
    }

    /// A device renamed in Zigbee2MQTT whose override is keyed by its old friendly name loses it.
    mutating func warnAboutRenames(from old: [Zigbee2MQTTDevice], to new: [Zigbee2MQTTDevice], bridge base: String) {
        let source = bridges[base]!.source
        let oldNames = Dictionary(old.map { ($0.ieeeAddress, $0.friendlyName) }, uniquingKeysWith: { a, _ in a })
        for device in new {
            guard let was = oldNames[device.ieeeAddress], was != device.friendlyName, source.devices[was] != nil,
                source.devices[device.ieeeAddress] == nil, source.devices[device.friendlyName] == nil
            else { continue }
            bridges[base]!.unmatchedWarned.insert(was)
            notice(
                .warning, .mappings,
                "\(source.baseTopic): '\(was)' was renamed to '\(device.friendlyName)' in Zigbee2MQTT; its override in \(source.file) "
                    + "is keyed by the old name and no longer applies: key it by its IEEE address \(device.ieeeAddress), which does not change"
            )
        }
    }

    /// A base topic nothing answers on (a typo, or Zigbee2MQTT's own base_topic is another): said once.
    mutating func warnAboutSilentBridges() {
        guard now.timeIntervalSince(startedAt) >= Self.bridgeSilence else { return }
        for base in bridges.keys.sorted() where bridges[base]!.devices == nil && !bridges[base]!.silenceWarned {
            bridges[base]!.silenceWarned = true
            let source = bridges[base]!.source
            notice(
                .warning, .mappings,
                "\(source.file): nothing answers on base_topic '\(source.baseTopic)': no \(source.baseTopic)/bridge/devices in "
                    + "\(Int(Self.bridgeSilence)) s. Check that it is Zigbee2MQTT's base_topic, and that Zigbee2MQTT runs on this broker")
        }
    }

    static let bridgeSilence: TimeInterval = 10

    /// A bridge that goes offline takes all its accessories with it until it is back.
    mutating func bridgeStateChanged(_ online: Bool, bridge base: String) {
        guard bridges[base] != nil else { return }
        if step.bridgeOnlineBefore[base] == nil { step.bridgeOnlineBefore[base] = bridges[base]!.online }
        bridges[base]!.online = online
        for (id, entry) in entries {
            if case .zigbee2mqtt(let b, _) = entry.source, b == base { setReachable(id, online && entry.deviceOnline) }
        }
    }

    /// After a reconnect: our retained messages again, and every device that can answer asked for its state, paced over ticks.
    public mutating func refreshAfterReconnect() {
        // A broker that restarted without persistence has lost our retained messages: publish them again.
        step.dirtyStates.formUnion(entries.keys)
        step.treeChanged = true
        refreshQueue = []
        for id in order {
            guard let entry = entries[id] else { continue }
            switch entry.source {
            case .zigbee2mqtt(let b, let mapping) where !mapping.gettableKeys.isEmpty:
                refreshQueue.append(getRequest(mapping, base: b))
            case .explicit(let mapping):
                for binding in mapping.bindings {
                    if let get = binding.get {
                        refreshQueue.append(.mqtt(topic: get.topic, payload: Array(get.payload.utf8), retain: false))
                    }
                }
            default:
                break
            }
        }
    }
}
