import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    mutating func handleZigbee2MQTT(_ message: Incoming, bridge index: Int) {
        let base = bridges[index].source.baseTopic
        let rest = String(message.topic.dropFirst(base.count + 1))
        switch rest {
        case "bridge/devices":
            return devicesChanged(message.payload, bridge: index)
        case "bridge/state":
            return bridgeStateChanged(message.payload, bridge: index)
        case "bridge/groups":
            return groupsChanged(message.payload, bridge: index)
        default:
            break
        }
        if rest.hasPrefix("bridge/") { return }
        if rest.hasSuffix("/availability") {
            return availabilityChanged(String(rest.dropLast("/availability".count)), message.payload, bridge: index)
        }
        // Our own /set and /get requests come back to us on <base>/#: `<name>/set`, `<name>/set/<key>`.
        // (A device's state topic has no `/` at all as a rule, so most messages stop at the first test.)
        if rest.utf8.contains(UInt8(ascii: "/")), rest.split(separator: "/").dropFirst().contains(where: { $0 == "set" || $0 == "get" }) {
            return
        }
        // Only the mapping is taken out: a copy of the whole entry would share the accessory's storage,
        // and apply's update would then copy every service of the accessory for each reading.
        guard let id = bridges[index].byFriendlyName[rest], case .zigbee2mqtt(_, let mapping)? = entries[id]?.source else { return }
        guard !message.payload.isEmpty else { return }  // a cleared retained state
        let payload: JSONValue
        do {
            payload = try JSONValue(parsing: message.payload)
        } catch {
            counters.invalid += 1
            notice(.warning, .devices, "\(message.topic): not JSON: \(error)")
            return
        }
        let (updates, errors) = mapping.decode(payload)
        for problem in errors {
            counters.invalid += 1
            notice(.warning, .devices, "\(message.topic): \(problem)")
        }
        apply(updates, to: id, origin: message.topic)
    }

    /// `bridge/devices`: new devices appear, removed ones go, renamed ones keep their id.
    mutating func devicesChanged(_ payload: [UInt8], bridge index: Int) {
        guard let devices = Zigbee2MQTTDevice.list(parsing: payload) else {
            counters.invalid += 1
            notice(.warning, .devices, "\(bridges[index].source.baseTopic)/bridge/devices: expected a JSON array of devices")
            return
        }
        let first = bridges[index].devices == nil
        let before = Set(bridges[index].byFriendlyName.values)
        warnAboutRenames(from: bridges[index].devices ?? [], to: devices, bridge: index)
        bridges[index].devices = devices
        warnAboutUnmatchedOverrides(devices, bridge: index)
        rebuild(bridge: index, requestState: true)
        let after = Set(bridges[index].byFriendlyName.values)
        let base = bridges[index].source.baseTopic
        if first {
            notice(.info, .devices, "\(base): \(devices.count) devices, \(after.count) of them accessories")
        } else {
            for id in after.subtracting(before).sorted() { notice(.info, .devices, "\(base): a device joined: accessory \(id)") }
            for id in before.subtracting(after).sorted() { notice(.info, .devices, "\(base): a device left: accessory \(id) is gone") }
        }
    }

    /// Builds the bridge's accessories from its last device list and the current overrides.
    mutating func rebuild(bridge index: Int, requestState: Bool) {
        guard let devices = bridges[index].devices else { return }
        let source = bridges[index].source
        var seen: Set<String> = []
        var byName: [String: String] = [:]
        var skipped: [SkippedDevice] = []
        // Members of a group whose override says hide_members are shown through the group alone.
        var hiddenBy: [String: String] = [:]
        for group in bridges[index].groups {
            guard let device = group.asDevice(devices), source.override(for: device).hideMembers else { continue }
            for member in group.members where hiddenBy[member.ieeeAddress] == nil { hiddenBy[member.ieeeAddress] = group.friendlyName }
        }
        for device in devices {
            if let group = hiddenBy[device.ieeeAddress] {
                skipped.append(SkippedDevice(device: device.friendlyName, reason: "shown through its group \(group) (hide_members)"))
                continue
            }
            place(device, online: nil, bridge: index, requestState: requestState, seen: &seen, byName: &byName, skipped: &skipped)
        }
        for group in bridges[index].groups {
            guard let device = group.asDevice(devices) else {
                skipped.append(SkippedDevice(device: "\(group.friendlyName) (id \(group.id))",
                                             reason: group.members.isEmpty ? "it has no members" : "its members share no light, switch, cover, lock, thermostat or fan",
                                             isGroup: true))
                continue
            }
            place(device, online: groupOnline(group, bridge: index), bridge: index, requestState: requestState, seen: &seen, byName: &byName, skipped: &skipped)
        }
        for (id, entry) in entries where !seen.contains(id) {
            if case .zigbee2mqtt(let b, _) = entry.source, b == index { remove(id) }
        }
        let newlySkipped = skipped.filter { !bridges[index].skipped.contains($0) }
        for reason in newlySkipped { notice(reason.needsAttention ? .warning : .info, .devices, "no accessory for \(source.baseTopic) \(reason.isGroup ? "group" : "device") \(reason)") }
        bridges[index].skipped = skipped
        bridges[index].byFriendlyName = byName
        treeChanged = true
        scenesStale = true
    }

    private func isSameDevice(_ entry: Entry, _ device: Zigbee2MQTTDevice) -> Bool {
        if case .zigbee2mqtt(_, let mapping) = entry.source { return mapping.ieeeAddress == device.ieeeAddress }
        return false
    }

    private func uniqueID(_ base: String) -> String {
        var n = 2
        while entries["\(base)_\(n)"] != nil { n += 1 }
        return "\(base)_\(n)"
    }

    private func rebuilt(_ mapping: Zigbee2MQTTMapping, id: String) -> Zigbee2MQTTMapping {
        var copy = mapping
        let a = mapping.accessory
        copy.accessory = Accessory(id: id, name: a.name, manufacturer: a.manufacturer, model: a.model, firmware: a.firmware,
                                   category: a.category, reachable: a.reachable, bridge: a.bridge, requestedRoom: a.requestedRoom, services: a.services)
        return copy
    }

    func getRequest(_ mapping: Zigbee2MQTTMapping, base: String) -> Outgoing {
        let body = JSONValue.object(Dictionary(mapping.gettableKeys.map { ($0, JSONValue.string("")) }, uniquingKeysWith: { a, _ in a }))
        return Outgoing("\(base)/\(mapping.friendlyName)/get", body.serializedBytes(), qos: 1)
    }

    /// `{"state":"online"}` (2.x) or plain `online` (1.x).
    static func availability(_ payload: [UInt8]) -> Bool? {
        let text: String?
        if let json = try? JSONValue(parsing: payload) {
            text = json["state"]?.stringValue ?? json.stringValue
        } else {
            text = String(decoding: payload, as: UTF8.self)
        }
        switch text?.lowercased() {
        case "online": return true
        case "offline": return false
        default: return nil
        }
    }

    mutating func availabilityChanged(_ name: String, _ payload: [UInt8], bridge index: Int) {
        guard !payload.isEmpty else { return }
        let id = bridges[index].byFriendlyName[name].flatMap { entries[$0] == nil ? nil : $0 }
        // A member hidden behind its group has no accessory, but its availability still counts for the group.
        let ieee = bridges[index].groups.isEmpty ? nil : bridges[index].devices?.first { $0.friendlyName == name }?.ieeeAddress
        guard id != nil || ieee != nil else { return }
        guard let online = Self.availability(payload) else {
            counters.invalid += 1
            notice(.warning, .devices, "\(bridges[index].source.baseTopic)/\(name)/availability: expected online or offline")
            return
        }
        if let id {
            entries[id]!.deviceOnline = online
            setReachable(id, online && bridges[index].online)
        }
        guard let ieee else { return }
        bridges[index].memberOnline[ieee] = online
        // A group is reachable while any of its members is.
        for group in bridges[index].groups where group.members.contains(where: { $0.ieeeAddress == ieee }) {
            guard let groupID = bridges[index].idByIEEE[group.key], entries[groupID] != nil else { continue }
            let any = groupOnline(group, bridge: index)
            entries[groupID]!.deviceOnline = any
            setReachable(groupID, any && bridges[index].online)
        }
    }

    /// One device (or group, as a device) of the bridge as an accessory, or the reason it is none.
    /// `online`: a group's reachability from its members; a device keeps what its availability said.
    private mutating func place(_ device: Zigbee2MQTTDevice, online: Bool?, bridge index: Int, requestState: Bool,
                                seen: inout Set<String>, byName: inout [String: String], skipped: inout [SkippedDevice]) {
        let source = bridges[index].source
        let knownID = bridges[index].idByIEEE[device.ieeeAddress]
        var mapping: Zigbee2MQTTMapping
        switch Zigbee2MQTTMapping.build(device, override: source.override(for: device), id: knownID, bridge: source.baseTopic) {
        case .failure(let reason):
            return skipped.append(reason)
        case .success(let built):
            mapping = built
        }
        var id = mapping.accessory.id
        if knownID == nil, entries[id].map({ !isSameDevice($0, device) }) == true {
            id = uniqueID(id)  // two names that collapse to one id, or a group named like a device
            mapping = rebuilt(mapping, id: id)
        }
        bridges[index].idByIEEE[device.ieeeAddress] = id
        if bridges[index].unmappedSaid[device.ieeeAddress] != mapping.unmapped {
            bridges[index].unmappedSaid[device.ieeeAddress] = mapping.unmapped
            if !mapping.unmapped.isEmpty {
                notice(.info, .devices, "\(source.baseTopic) device \(device.friendlyName): not shown: "
                    + mapping.unmapped.map(\.description).joined(separator: ", "))
            }
        }
        seen.insert(id)
        byName[device.friendlyName] = id
        var accessory = mapping.accessory
        let old = entries[id]
        if let old { Self.carryValues(from: old.accessory, into: &accessory) }
        let deviceOnline = online ?? old?.deviceOnline ?? true
        accessory.reachable = bridges[index].online && deviceOnline
        insert(Entry(accessory: accessory, source: .zigbee2mqtt(bridge: index, mapping: mapping), deviceOnline: deviceOnline))
        if requestState, old == nil, !mapping.gettableKeys.isEmpty {
            refreshQueue.append(getRequest(mapping, base: source.baseTopic))
        }
    }

    /// Whether any member of the group is online (a group without known members counts as online).
    func groupOnline(_ group: Zigbee2MQTTGroup, bridge index: Int) -> Bool {
        group.members.isEmpty || group.members.contains { bridges[index].memberOnline[$0.ieeeAddress] ?? true }
    }

    /// `bridge/groups`: a group of devices that share a light, switch, cover, lock, thermostat or fan
    /// becomes an accessory of its own; its writes go to `<base>/<group>/set`.
    mutating func groupsChanged(_ payload: [UInt8], bridge index: Int) {
        guard let groups = Zigbee2MQTTGroup.list(parsing: payload) else {
            counters.invalid += 1
            notice(.warning, .devices, "\(bridges[index].source.baseTopic)/bridge/groups: expected a JSON array of groups")
            return
        }
        guard groups != bridges[index].groups || !bridges[index].groupsKnown else { return }
        bridges[index].groups = groups
        bridges[index].groupsKnown = true
        rebuild(bridge: index, requestState: true)
    }

    /// An override keyed by a friendly name that no device has (a typo, a device renamed since):
    /// said once per key, with the closest name on the bridge.
    mutating func warnAboutUnmatchedOverrides(_ devices: [Zigbee2MQTTDevice], bridge index: Int) {
        let source = bridges[index].source
        let keys = Set(devices.map(\.friendlyName) + devices.map(\.ieeeAddress))
        for key in source.devices.keys.sorted() where !keys.contains(key) && !bridges[index].unmatchedWarned.contains(key) {
            bridges[index].unmatchedWarned.insert(key)
            notice(.warning, .mappings, "\(source.file): the override '\(key)' matches no device on \(source.baseTopic)\(didYouMean(key, devices.map(\.friendlyName))); "
                + "it does nothing until a device has that friendly name or IEEE address")
        }
    }

    /// A device renamed in Zigbee2MQTT whose override is keyed by its old friendly name loses it.
    mutating func warnAboutRenames(from old: [Zigbee2MQTTDevice], to new: [Zigbee2MQTTDevice], bridge index: Int) {
        let source = bridges[index].source
        let oldNames = Dictionary(old.map { ($0.ieeeAddress, $0.friendlyName) }, uniquingKeysWith: { a, _ in a })
        for device in new {
            guard let was = oldNames[device.ieeeAddress], was != device.friendlyName, source.devices[was] != nil,
                  source.devices[device.ieeeAddress] == nil, source.devices[device.friendlyName] == nil else { continue }
            bridges[index].unmatchedWarned.insert(was)
            notice(.warning, .mappings, "\(source.baseTopic): '\(was)' was renamed to '\(device.friendlyName)' in Zigbee2MQTT; its override in \(source.file) "
                + "is keyed by the old name and no longer applies: key it by its IEEE address \(device.ieeeAddress), which does not change")
        }
    }

    /// A base topic nothing answers on (a typo, or Zigbee2MQTT's own base_topic is another): said once.
    mutating func warnAboutSilentBridges() {
        guard now.timeIntervalSince(startedAt) >= Self.bridgeSilence else { return }
        for index in bridges.indices where bridges[index].devices == nil && !bridges[index].silenceWarned {
            bridges[index].silenceWarned = true
            let source = bridges[index].source
            notice(.warning, .mappings, "\(source.file): nothing answers on base_topic '\(source.baseTopic)': no \(source.baseTopic)/bridge/devices in "
                + "\(Int(Self.bridgeSilence)) s. Check that it is Zigbee2MQTT's base_topic, and that Zigbee2MQTT runs on this broker")
        }
    }

    static let bridgeSilence: TimeInterval = 10

    /// A bridge that goes offline takes all its accessories with it until it is back.
    mutating func bridgeStateChanged(_ payload: [UInt8], bridge index: Int) {
        guard !payload.isEmpty, let online = Self.availability(payload) else { return }
        if bridgeOnlineBefore[index] == nil { bridgeOnlineBefore[index] = bridges[index].online }
        bridges[index].online = online
        for (id, entry) in entries {
            if case .zigbee2mqtt(let b, _) = entry.source, b == index { setReachable(id, online && entry.deviceOnline) }
        }
    }

    /// After a reconnect: our retained messages again, and every device that can answer asked for its state, paced over ticks.
    public mutating func refreshAfterReconnect() {
        // A broker that restarted without persistence has lost our retained messages: publish them again.
        dirtyStates.formUnion(entries.keys)
        treeChanged = true
        refreshQueue = []
        for id in order {
            guard let entry = entries[id] else { continue }
            switch entry.source {
            case .zigbee2mqtt(let b, let mapping) where !mapping.gettableKeys.isEmpty:
                refreshQueue.append(getRequest(mapping, base: bridges[b].source.baseTopic))
            case .explicit(let mapping):
                for binding in mapping.bindings { if let get = binding.get { refreshQueue.append(Outgoing(get.topic, Array(get.payload.utf8), qos: 1)) } }
            default:
                break
            }
        }
    }
}
