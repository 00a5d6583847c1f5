import Foundation
import HomeModel
import JSON
import Mappings

/// The core's accessories and their values: each accessory with the device it is (its source),
/// whether and when that device was heard, the writes and reads waiting for the device to answer,
/// the values stored at the last run for accessories not here yet, and the state requests paced
/// out to devices. It decides no names, rooms or automations: the step asks it, and tells the
/// other parts what it answered.
struct AccessoryTable: Sendable {
    struct Entry: Sendable {
        /// Boxed: an entry is stored inline in the entries dictionary, and a mapping is as large as an accessory.
        indirect enum Source: Sendable {
            case zigbee2mqtt(bridge: String, mapping: Zigbee2MQTTMapping)
            case explicit(MQTTAccessoryMapping)
        }
        var accessory: Accessory
        var source: Source
        var deviceOnline = true
        /// Whether anything was heard of it since the start: an accessory placed from the stored
        /// device list (`HomeCore+Known.swift`) is not, until its bridge or the device speaks.
        var heard = true
        /// When the device last sent its state (any report, even one that changed nothing or could
        /// not be read), since the gateway started; a retained message the broker replays does not count.
        var lastSeen: Date?
        /// The names the mapping gives services (by id), as built: the accessory's own carry the
        /// user's names over them, and a Zigbee2MQTT mapping keeps no services of its own.
        var mappingServiceNames: [String: String] = [:]

        /// The Zigbee2MQTT bridge it came through, if any.
        var bridge: String? { if case .zigbee2mqtt(let base, _) = source { base } else { nil } }
    }

    /// A write sent to a device, so the value it reports back is credited to whoever wrote it.
    struct PendingWrite: Sendable {
        var value: CharacteristicValue
        var source: ChangeSource
        var deadline: Date
    }

    /// A read request waiting for the device to report.
    struct PendingRead: Sendable {
        var key: CharacteristicPath
        var ticket: Ticket
        var deadline: Date
    }

    /// What applying one value did, in order.
    enum Outcome: Sendable {
        /// A read waiting for it is answered.
        case answered(Ticket, CharacteristicRead)
        case changed(CharacteristicChange)
        /// The value does not fit the characteristic (or there is none such).
        case refused(any Error)
    }

    private(set) var entries: [String: Entry] = [:]
    /// Accessory ids in the order they were added, for a stable tree.
    private(set) var order: [String] = []
    /// Writes waiting for the device to echo them, oldest first, a few per characteristic: two
    /// writes in one moment are each credited to their writer.
    private var pendingWrites: [CharacteristicPath: [PendingWrite]] = [:]
    private var pendingReads: [PendingRead] = []
    /// Last known values from the store, for accessories that have not appeared yet.
    private(set) var storedValues: [CharacteristicPath: CharacteristicValue]
    /// Accessories that left while running: one that comes back is announced as added again.
    private var departed: Set<String> = []
    /// State requests paced out after devices joined or a reconnect.
    private var refreshQueue: [DeviceCommand] = []

    init(storedValues: [CharacteristicPath: CharacteristicValue] = [:]) {
        self.storedValues = storedValues
    }

    subscript(id: String) -> Entry? { entries[id] }
    var accessories: [Accessory] { order.compactMap { entries[$0]?.accessory } }
    var count: Int { entries.count }
    var lastSeen: [String: Date] { entries.compactMapValues(\.lastSeen) }

    /// The value a characteristic has now, or last had before a restart if its accessory has not
    /// appeared yet: what conditions and deadlines read.
    var currentValue: (CharacteristicPath) -> CharacteristicValue? {
        { [entries, storedValues] path in
            if let accessory = entries[path.accessory]?.accessory { return accessory[path]?.value }
            return storedValues[path]
        }
    }

    /// The accessories that came through bridge `base`, in no order.
    func ids(ofBridge base: String) -> [String] { entries.compactMap { $0.value.bridge == base ? $0.key : nil } }

    /// The accessories of bridge `base` placed from the stored lists and not heard from since.
    func unheard(ofBridge base: String) -> [String] {
        entries.compactMap { !$0.value.heard && $0.value.bridge == base ? $0.key : nil }
    }

    /// The accessories of `source: mqtt` files.
    var explicitIDs: [String] {
        entries.compactMap { id, entry in if case .explicit = entry.source { id } else { nil } }
    }

    // MARK: Coming and going

    /// Adds or replaces an accessory; the entry it replaces. A new one gets the values last stored
    /// for it; `returned` when it left while running and is back.
    mutating func insert(_ entry: Entry) -> (old: Entry?, returned: Bool) {
        var entry = entry
        Self.markUnwritable(&entry)
        for service in entry.accessory.services { if let name = service.name { entry.mappingServiceNames[service.id] = name } }
        let id = entry.accessory.id
        let old = entries[id]
        if old == nil {
            order.append(id)
            restoreStoredValues(into: &entry.accessory)
        }
        entry.lastSeen = entry.lastSeen ?? old?.lastSeen
        entries[id] = entry
        return (old, old == nil && departed.remove(id) != nil)
    }

    /// Removes an accessory and the writes waiting for it; the entry removed.
    mutating func remove(_ id: String) -> Entry? {
        guard let removed = entries.removeValue(forKey: id) else { return nil }
        departed.insert(id)
        order.removeAll { $0 == id }
        pendingWrites = pendingWrites.filter { $0.key.accessory != id }
        return removed
    }

    /// Puts the name, home and room it has in the house on an accessory, and its services' names:
    /// the user's (`serviceNames`), else the mapping's.
    mutating func label(_ id: String, name: String, home: String, room: String, serviceNames: [String: String]) {
        guard var accessory = entries[id]?.accessory else { return }
        accessory.name = name
        accessory.home = home
        accessory.room = room
        for s in accessory.services.indices {
            let service = accessory.services[s].id
            accessory.services[s].name = serviceNames[service] ?? mappingServiceName(id, service, accessoryName: name)
        }
        entries[id]!.accessory = accessory
    }

    // MARK: What was heard

    /// The device sent its state at `now` (a live message, not a retained one).
    mutating func seen(_ id: String, at now: Date) {
        guard let index = entries.index(forKey: id) else { return }
        entries.values[index].lastSeen = now
    }

    /// Something was heard of the accessory; whether that is news (it was placed from the stored lists).
    mutating func hear(_ id: String) -> Bool {
        guard let index = entries.index(forKey: id), !entries.values[index].heard else { return false }
        entries.values[index].heard = true
        return true
    }

    /// The device's availability; `heard` as well for a Zigbee2MQTT device, whose availability is the bridge's word.
    mutating func setDeviceOnline(_ id: String, _ online: Bool, heard: Bool) {
        guard let index = entries.index(forKey: id) else { return }
        entries.values[index].deviceOnline = online
        if heard { entries.values[index].heard = true }
    }

    /// Reachability, and why not (`reason` is kept only while unreachable); the reachability it had
    /// before, or nil when nothing changed.
    mutating func setReachable(_ id: String, _ reachable: Bool, reason: String?) -> Bool? {
        let reason = reachable ? nil : reason
        guard let index = entries.index(forKey: id) else { return nil }
        let before = entries.values[index].accessory.reachable
        guard before != reachable || entries.values[index].accessory.unreachableReason != reason else { return nil }
        entries.values[index].accessory.reachable = reachable
        entries.values[index].accessory.unreachableReason = reason
        return before
    }

    // MARK: Values

    /// Applies decoded values to an accessory, each in turn: the reads waiting for it answered, the
    /// change credited to the write it echoes, or the value refused. `outcomes` is appended to.
    mutating func apply(_ updates: [CharacteristicUpdate], to id: String, at now: Date, into outcomes: inout [Outcome]) {
        // Through an index into `values`: `entries[id]!.…` would move the whole entry out of the
        // dictionary and back for each update.
        guard let index = entries.index(forKey: id) else { return }
        for update in updates {
            let key = CharacteristicPath(accessory: id, service: update.service, characteristic: update.characteristic)
            answerReads(for: key, value: update.value, into: &outcomes)
            var source = ChangeSource.device
            if let pending = pendingWrites[key],
                let characteristic = entries.values[index].accessory[update.service]?[update.characteristic],
                let match = pending.firstIndex(where: { $0.deadline >= now && characteristic.isSame($0.value, update.value) })
            {
                source = pending[match].source
                // The echo of this write: it and the writes before it are done.
                let rest = pending.dropFirst(match + 1)
                pendingWrites[key] = rest.isEmpty ? nil : Array(rest)
            }
            do {
                if let change = try entries.values[index].accessory.update(
                    service: update.service, characteristic: update.characteristic,
                    value: update.value, source: source)
                {
                    outcomes.append(.changed(change))
                }
            } catch {
                outcomes.append(.refused(error))
            }
        }
    }

    private mutating func answerReads(for key: CharacteristicPath, value: CharacteristicValue, into outcomes: inout [Outcome]) {
        guard !pendingReads.isEmpty, pendingReads.contains(where: { $0.key == key }) else { return }
        for read in pendingReads where read.key == key {
            outcomes.append(.answered(read.ticket, CharacteristicRead(path: key, value: value, fresh: true)))
        }
        pendingReads.removeAll { $0.key == key }
    }

    /// Writes not echoed in time are no one's; reads not answered in time are answered with the
    /// value last known, returned.
    mutating func expire(at now: Date) -> [(PendingRead, CharacteristicValue?)] {
        pendingWrites = pendingWrites.compactMapValues { writes in
            let live = writes.filter { $0.deadline >= now }
            return live.isEmpty ? nil : live
        }
        let expired = pendingReads.filter { $0.deadline < now }
        pendingReads.removeAll { $0.deadline < now }
        return expired.map { read in (read, entries[read.key.accessory]?.accessory[read.key.service]?[read.key.characteristic]?.value) }
    }

    /// A read asked of the device, answered when it reports or at `deadline`.
    mutating func awaitRead(_ key: CharacteristicPath, ticket: Ticket, deadline: Date) {
        pendingReads.append(PendingRead(key: key, ticket: ticket, deadline: deadline))
    }

    // MARK: Writes

    /// The device messages for an accessory's writes, each write waiting for its echo until
    /// `deadline`. A transition reaches Zigbee2MQTT lights that dim; a `source: mqtt` binding has no place for it.
    mutating func send(_ updates: [CharacteristicUpdate], to id: String, source: ChangeSource, deadline: Date, transition: Double? = nil)
        -> Sent
    {
        guard let entry = entries[id] else { return Sent() }
        for update in updates {
            let key = CharacteristicPath(accessory: id, service: update.service, characteristic: update.characteristic)
            pendingWrites[key, default: []].append(PendingWrite(value: update.value, source: source, deadline: deadline))
            if pendingWrites[key]!.count > 8 { pendingWrites[key]!.removeFirst() }
        }
        var sent = Sent()
        switch entry.source {
        case .zigbee2mqtt(let bridge, let mapping):
            guard let payload = try? mapping.encode(updates, current: entry.accessory, transition: transition) else { return sent }
            sent.commands.append(.zigbee2mqtt(bridge: bridge, device: mapping.friendlyName, endpoint: nil, .set, payload))
        case .explicit(let mapping):
            for update in updates {
                guard
                    let binding = mapping.bindings.first(where: {
                        $0.service == update.service && $0.characteristic == update.characteristic
                    }),
                    let set = binding.set, let characteristic = entry.accessory[update.service]?[update.characteristic]
                else { continue }
                switch set.payload(for: update.value, characteristic: characteristic) {
                case .success(let payload):
                    sent.commands.append(.mqtt(topic: set.topic, payload: payload, retain: set.retain))
                    // Nothing will report it back: take the write as the new state.
                    if binding.state == nil { sent.optimistic.append(update) }
                case .failure(let problem):
                    sent.problems.append("\(id)/\(update.service)/\(update.characteristic): \(problem)")
                }
            }
        }
        return sent
    }

    // MARK: Asking devices

    /// A state request to send when its turn comes (`pace`).
    mutating func queueRequest(_ command: DeviceCommand) { refreshQueue.append(command) }

    /// Every device that can answer asked for its state again, in the order the accessories came.
    mutating func queueRefreshOfAll() {
        refreshQueue = []
        for id in order {
            guard let entry = entries[id] else { continue }
            switch entry.source {
            case .zigbee2mqtt(let b, let mapping) where !mapping.gettableKeys.isEmpty:
                refreshQueue.append(Self.getRequest(mapping, base: b))
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

    /// The next `limit` of the queued state requests.
    mutating func pace(limit: Int) -> [DeviceCommand] {
        let paced = refreshQueue.prefix(limit)
        refreshQueue.removeFirst(paced.count)
        return Array(paced)
    }

    // MARK: Building

    private mutating func restoreStoredValues(into accessory: inout Accessory) {
        guard !storedValues.isEmpty else { return }
        for s in accessory.services.indices {
            for c in accessory.services[s].characteristics.indices {
                let path = CharacteristicPath(
                    accessory: accessory.id, service: accessory.services[s].id,
                    characteristic: accessory.services[s].characteristics[c].name)
                guard let value = storedValues.removeValue(forKey: path), accessory.services[s].characteristics[c].value == nil,
                    case .success(let fitting) = accessory.services[s].characteristics[c].check(value)
                else { continue }
                accessory.services[s].characteristics[c].value = fitting
            }
        }
    }
}
