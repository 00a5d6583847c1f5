import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// `<base>/<device>`: a device's (or group's) state report, for an accessory.
    mutating func reported(_ name: String, topic: String, _ payload: [UInt8], bridge base: String, seen: Bool) {
        // Only the mapping is taken out: a copy of the whole entry would share the accessory's storage,
        // and apply's update would then copy every service of the accessory for each reading.
        guard let id = bridges.accessory(named: name, on: base), case .zigbee2mqtt(_, let mapping)? = entries[id]?.source else { return }
        if seen { entries[id]?.lastSeen = now }
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
        guard let change = bridges.update(base, { $0.takeDevices(devices) }) ?? nil else { return }
        for warning in change.warnings { notice(.warning, .mappings, warning) }
        rebuild(bridge: base, requestState: true)
        let after = bridges[base]?.accessories ?? []
        if change.first {
            notice(.info, .devices, "\(base): \(devices.count) devices, \(after.count) of them accessories")
        } else {
            for id in after.subtracting(change.accessoriesBefore).sorted() {
                notice(.info, .devices, "\(base): a device joined: accessory \(id)")
            }
            for id in change.accessoriesBefore.subtracting(after).sorted() {
                notice(.info, .devices, "\(base): a device left: accessory \(id) is gone")
            }
        }
    }

    /// `bridge/groups`: a group of devices that share a light, switch, cover, lock, thermostat or fan
    /// becomes an accessory of its own; its writes go to `<base>/<group>/set`.
    mutating func groupsChanged(_ groups: [Zigbee2MQTTGroup], bridge base: String) {
        guard bridges.update(base, { $0.takeGroups(groups) }) == true else { return }
        rebuild(bridge: base, requestState: true)
    }

    /// `<base>/<device>/availability`: the device's accessory, and the groups it is a member of.
    mutating func availabilityChanged(_ name: String, _ said: Bool?, bridge base: String) {
        // Read apart, not kept: a copy of the bridge held while its members change would copy their table.
        guard let (named, member, bridgeOnline) = bridges[base].map({ ($0.accessory(named: name), $0.groupMember(named: name), $0.online) })
        else { return }
        let id = named.flatMap { entries[$0] == nil ? nil : $0 }
        guard id != nil || member != nil else { return }
        guard let online = said else {
            counters.invalid += 1
            notice(.warning, .devices, "\(base)/\(name)/availability: expected online or offline")
            return
        }
        if let id { setDeviceOnline(id, online, bridgeOnline: bridgeOnline) }
        guard let member else { return }
        for group in bridges.update(base, { $0.memberAvailability(member, online: online) }) ?? [] where entries[group.accessory] != nil {
            setDeviceOnline(group.accessory, group.online, bridgeOnline: bridgeOnline)
        }
    }

    /// Reachability is the bridge's and the device's availability together.
    private mutating func setDeviceOnline(_ id: String, _ online: Bool, bridgeOnline: Bool) {
        entries[id]?.deviceOnline = online
        setReachable(id, online && bridgeOnline)
    }

    /// A bridge that goes offline takes all its accessories with it until it is back.
    mutating func bridgeStateChanged(_ online: Bool, bridge base: String) {
        guard let was = bridges.update(base, { $0.setOnline(online) }) else { return }
        if step.bridgeOnlineBefore[base] == nil { step.bridgeOnlineBefore[base] = was }
        for (id, entry) in entries {
            if case .zigbee2mqtt(let b, _) = entry.source, b == base { setReachable(id, online && entry.deviceOnline) }
        }
    }

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

    /// `<base>/<device>/get` for every key the device can be asked for.
    func getRequest(_ mapping: Zigbee2MQTTMapping, base: String) -> DeviceCommand {
        let body = JSONValue.object(Dictionary(mapping.gettableKeys.map { ($0, JSONValue.string("")) }, uniquingKeysWith: { a, _ in a }))
        return .zigbee2mqtt(bridge: base, device: mapping.friendlyName, endpoint: nil, .get, body)
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
