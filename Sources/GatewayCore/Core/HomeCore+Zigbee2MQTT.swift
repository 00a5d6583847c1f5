import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// `<base>/<device>`: a device's (or group's) state report, for an accessory.
    mutating func reported(_ name: String, topic: String, _ payload: [UInt8], bridge base: String, seen: Bool) {
        // Only the mapping is taken out: a copy of the whole entry would share the accessory's storage,
        // and apply's update would then copy every service of the accessory for each reading.
        guard let id = bridges.accessory(named: name, on: base), case .zigbee2mqtt(_, let mapping)? = table[id]?.source else {
            bridges.update(base) { $0.wait(for: name) { $0.report = (topic, payload, seen) } }
            return
        }
        if seen { table.seen(id, at: now) }
        if table.hear(id) { updateReachability(id) }
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
        defer { hear(bridge: base) }
        guard let change = bridges.update(base, { $0.takeDevices(devices) }) ?? nil else { return }
        for warning in change.warnings { notice(.warning, .mappings, warning) }
        step.inventoriesChanged.insert(base)
        if !change.keptWhileOffline.isEmpty {
            notice(
                .info, .devices,
                "\(base): the bridge is offline and its device list leaves out \(Self.listed(change.keptWhileOffline)); "
                    + "kept, unreachable: only an online bridge's list removes a device")
        }
        rebuild(bridge: base, requestState: true)
        bridges.update(base) { $0.keepFormerNames(change.renamed) }
        readWaiting(bridge: base)
        let after = bridges[base]?.accessories ?? []
        if change.first {
            notice(.info, .devices, "\(base): \(devices.count) devices, \(after.count) of them accessories")
        } else {
            for id in after.subtracting(change.accessoriesBefore).sorted() {
                notice(.info, .devices, "\(base): a device joined: accessory \(id)")
            }
            for id in change.accessoriesBefore.subtracting(after).sorted() {
                notice(
                    .warning, .devices,
                    "\(base): a device left: accessory \(id) is gone, removed from Zigbee2MQTT (Apple Home forgets it, "
                        + "with its room, scenes and automations)")
            }
        }
    }

    /// `bridge/groups`: a group of devices that share a light, switch, cover, lock, thermostat or fan
    /// becomes an accessory of its own; its writes go to `<base>/<group>/set`.
    mutating func groupsChanged(_ groups: [Zigbee2MQTTGroup], bridge base: String) {
        defer { hear(bridge: base) }
        guard bridges.update(base, { $0.takeGroups(groups) }) == true else { return }
        step.inventoriesChanged.insert(base)
        rebuild(bridge: base, requestState: true)
        readWaiting(bridge: base)
    }

    /// What came for names no accessory had, read again now that a list changed: a device that
    /// joined or was renamed, its state sent right after its list and read before it.
    private mutating func readWaiting(bridge base: String) {
        guard let waiting = bridges.update(base, { $0.takeWaiting() }), !waiting.isEmpty else { return }
        for (name, input) in waiting.sorted(by: { $0.key < $1.key }) where bridges.accessory(named: name, on: base) != nil {
            if let said = input.availability { availabilityChanged(name, said, bridge: base) }
            if let report = input.report { reported(name, topic: report.topic, report.payload, bridge: base, seen: report.seen) }
        }
        // Read again, a name with no accessory waits anew: let it go, it had its chance.
        bridges.update(base) { $0.letWaitingGo() }
    }

    /// `<base>/<device>/availability`: the device's accessory, and the groups it is a member of.
    mutating func availabilityChanged(_ name: String, _ said: Bool?, bridge base: String) {
        // Read apart, not kept: a copy of the bridge held while its members change would copy their table.
        guard let (named, member, bridgeOnline) = bridges[base].map({ ($0.accessory(named: name), $0.groupMember(named: name), $0.online) })
        else { return }
        let id = named.flatMap { table[$0] == nil ? nil : $0 }
        guard id != nil || member != nil else {
            bridges.update(base) { $0.wait(for: name) { $0.availability = .some(said) } }
            return
        }
        guard let online = said else {
            counters.invalid += 1
            notice(.warning, .devices, "\(base)/\(name)/availability: expected online or offline")
            return
        }
        if let id { setDeviceOnline(id, online, bridgeOnline: bridgeOnline) }
        guard let member else { return }
        for group in bridges.update(base, { $0.memberAvailability(member, online: online) }) ?? [] where table[group.accessory] != nil {
            setDeviceOnline(group.accessory, group.online, bridgeOnline: bridgeOnline)
        }
    }

    /// A device's availability: it is heard from, online or not.
    private mutating func setDeviceOnline(_ id: String, _ online: Bool, bridgeOnline: Bool) {
        table.setDeviceOnline(id, online, heard: true)
        updateReachability(id)
    }

    /// A bridge that goes offline takes all its accessories with it until it is back.
    mutating func bridgeStateChanged(_ online: Bool, bridge base: String) {
        guard let was = bridges.update(base, { $0.setOnline(online) }) else { return }
        if step.bridgeOnlineBefore[base] == nil { step.bridgeOnlineBefore[base] = was }
        hear(bridge: base)
        for id in table.ids(ofBridge: base) { updateReachability(id) }
    }

    /// The bridge spoke (its state, a list, even one as it was): its accessories placed from the
    /// stored lists are heard from, and reachable as the bridge and their devices are.
    mutating func hear(bridge base: String) {
        for id in table.unheard(ofBridge: base) where table.hear(id) { updateReachability(id) }
    }

    /// Reachability is what was heard since the start, the bridge's state and the device's
    /// availability together.
    mutating func updateReachability(_ id: String) {
        guard let entry = table[id], case .zigbee2mqtt(let base, _) = entry.source else { return }
        let (reachable, reason) = Self.reachability(
            heard: entry.heard, bridgeOnline: bridges[base]?.online ?? true, deviceOnline: entry.deviceOnline)
        setReachable(id, reachable, reason: reason)
    }

    static func reachability(heard: Bool, bridgeOnline: Bool, deviceOnline: Bool) -> (Bool, String?) {
        if !heard { return (false, notHeardReason) }
        if !bridgeOnline { return (false, "its Zigbee2MQTT bridge is offline") }
        if !deviceOnline { return (false, "its device is offline (Zigbee2MQTT availability)") }
        return (true, nil)
    }

    static let notHeardReason = "not heard from since start"

    /// A base topic nothing answers on (a typo, or Zigbee2MQTT's own base_topic is another): said once.
    mutating func warnAboutSilentBridges() {
        guard now.timeIntervalSince(startedAt) >= Self.bridgeSilence else { return }
        for base in bridges.baseTopics {
            if let warning = bridges.update(base, { $0.silenceWarning(after: Int(Self.bridgeSilence)) }) ?? nil {
                notice(.warning, .mappings, warning)
            }
        }
    }

    static let bridgeSilence: TimeInterval = 10

    /// After a reconnect: our retained messages again, and every device that can answer asked for its state, paced over ticks.
    public mutating func refreshAfterReconnect() {
        // A broker that restarted without persistence has lost our retained messages: publish them again.
        step.dirtyStates.formUnion(table.entries.keys)
        step.treeChanged = true
        table.queueRefreshOfAll()
    }
}
