import HomeModel
import JSON
import Mappings

/// What the table answers without changing: the names mappings give, a write checked, the request
/// that makes a device report, and how an accessory is built (what it cannot write, the values it
/// carries over).
extension AccessoryTable {
    /// What sending writes to a device comes to.
    struct Sent {
        var commands: [DeviceCommand] = []
        /// Writes nothing will report back, taken as the new state.
        var optimistic: [CharacteristicUpdate] = []
        var problems: [String] = []
    }

    /// The name the accessory's mapping gives it.
    func mappingName(_ id: String) -> String? {
        switch entries[id]?.source {
        case .zigbee2mqtt(_, let mapping): mapping.accessory.name
        case .explicit(let mapping): mapping.accessory.name
        case nil: nil
        }
    }

    /// The name the accessory's mapping gives a service. A name made of the accessory's name and
    /// an endpoint (`Relay l1`) follows the accessory's name in the home (`Kitchen relay l1`).
    func mappingServiceName(_ id: String, _ service: String, accessoryName: String) -> String? {
        guard let name = entries[id]?.mappingServiceNames[service] else { return nil }
        guard let mapped = mappingName(id), name.hasPrefix(mapped + " "), accessoryName != mapped else { return name }
        return accessoryName + name.dropFirst(mapped.count)
    }

    /// A write checked against the accessory as it is now: the value as the characteristic keeps it.
    func check(_ request: WriteRequest) -> Result<CharacteristicValue, HomeError> {
        guard let entry = entries[request.accessory] else { return .failure(.notFound("\(request.accessory): no such accessory")) }
        guard let value = CharacteristicValue(json: request.value) else {
            return .failure(
                .invalid(
                    "\(request.accessory)/\(request.service)/\(request.characteristic): \(request.value.serialized()) is not a value (send true, 80, 21.5 or \"text\")",
                    field: "value"))
        }
        let canonical: CharacteristicValue
        do {
            canonical = try entry.accessory.validateWrite(service: request.service, characteristic: request.characteristic, value: value)
        } catch {
            return .failure(HomeError(error))
        }
        guard entry.accessory.reachable else { return .failure(.unreachable("\(request.accessory): is not reachable")) }
        return .success(canonical)
    }

    /// The `/get` (or get topic) that makes the device report this characteristic, if there is one.
    func deviceRead(_ key: CharacteristicPath) -> DeviceCommand? {
        switch entries[key.accessory]?.source {
        case .zigbee2mqtt(let bridge, let mapping):
            guard !mapping.gettableKeys.isEmpty else { return nil }
            return Self.getRequest(mapping, base: bridge)
        case .explicit(let mapping):
            guard let get = mapping.bindings.first(where: { $0.service == key.service && $0.characteristic == key.characteristic })?.get
            else { return nil }
            return .mqtt(topic: get.topic, payload: Array(get.payload.utf8), retain: false)
        case nil:
            return nil
        }
    }

    /// `<base>/<device>/get` for every key the device can be asked for.
    static func getRequest(_ mapping: Zigbee2MQTTMapping, base: String) -> DeviceCommand {
        let body = JSONValue.object(Dictionary(mapping.gettableKeys.map { ($0, JSONValue.string("")) }, uniquingKeysWith: { a, _ in a }))
        return .zigbee2mqtt(bridge: base, device: mapping.friendlyName, endpoint: nil, .get, body)
    }

    /// A characteristic HAP lets be written but the device's mapping gives no way to write is
    /// read-only on this accessory: not offered as writable, and refused as such.
    static func markUnwritable(_ entry: inout Entry) {
        for s in entry.accessory.services.indices {
            let service = entry.accessory.services[s].id
            for c in entry.accessory.services[s].characteristics.indices
            where entry.accessory.services[s].characteristics[c].type.isWritable {
                let characteristic = entry.accessory.services[s].characteristics[c].type.name
                let writable =
                    switch entry.source {
                    case .zigbee2mqtt(_, let mapping): mapping.isWritable(service: service, characteristic: characteristic)
                    case .explicit(let mapping):
                        mapping.bindings.contains { $0.service == service && $0.characteristic == characteristic && $0.set != nil }
                    }
                entry.accessory.services[s].characteristics[c].isWritable = writable
            }
        }
    }

    /// Carries values from the accessory as it was into the rebuilt one, for every characteristic
    /// that still exists: a reload or a rename does not forget the house.
    static func carryValues(from old: Accessory, into new: inout Accessory) {
        new.reachable = old.reachable
        new.unreachableReason = old.unreachableReason
        for s in new.services.indices {
            guard let oldService = old[new.services[s].id] else { continue }
            for c in new.services[s].characteristics.indices {
                let name = new.services[s].characteristics[c].name
                if let value = oldService[name]?.value, case .success(let fitting) = new.services[s].characteristics[c].check(value) {
                    new.services[s].characteristics[c].value = fitting
                }
            }
        }
    }
}
