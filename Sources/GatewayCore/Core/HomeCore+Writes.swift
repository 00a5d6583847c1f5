import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// Validates each write against the model and sends the accepted ones: one `/set` per
    /// Zigbee2MQTT device for all of its writes in this call.
    mutating func write(_ requests: [WriteRequest], source: ChangeSource) -> [Result<CharacteristicValue, HomeError>] {
        var results: [Result<CharacteristicValue, HomeError>] = []
        var accepted: [(String, CharacteristicUpdate)] = []
        for request in requests {
            guard let entry = entries[request.accessory] else {
                results.append(.failure(.notFound("\(request.accessory): no such accessory")))
                continue
            }
            guard let value = CharacteristicValue(json: request.value) else {
                results.append(
                    .failure(
                        .invalid(
                            "\(request.accessory)/\(request.service)/\(request.characteristic): \(request.value.serialized()) is not a value (send true, 80, 21.5 or \"text\")",
                            field: "value")))
                continue
            }
            let canonical: CharacteristicValue
            do {
                canonical = try entry.accessory.validateWrite(
                    service: request.service, characteristic: request.characteristic, value: value)
            } catch {
                results.append(.failure(HomeError(error)))
                continue
            }
            guard entry.accessory.reachable else {
                results.append(.failure(.unreachable("\(request.accessory): is not reachable")))
                continue
            }
            accepted.append(
                (
                    request.accessory,
                    CharacteristicUpdate(service: request.service, characteristic: request.characteristic, value: canonical)
                ))
            results.append(.success(canonical))
        }
        var order: [String] = []
        var byAccessory: [String: [CharacteristicUpdate]] = [:]
        for (id, update) in accepted {
            if byAccessory[id] == nil { order.append(id) }
            byAccessory[id, default: []].append(update)
        }
        for id in order { send(byAccessory[id]!, to: id, source: source) }
        return results
    }

    /// A characteristic HAP lets be written but the device's mapping gives no way to write is
    /// read-only on this accessory: not offered as writable, and refused as such.
    func markUnwritable(_ entry: inout Entry) {
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

    private mutating func send(_ updates: [CharacteristicUpdate], to id: String, source: ChangeSource) {
        guard let entry = entries[id] else { return }
        for update in updates {
            let key = CharacteristicKey(accessory: id, service: update.service, characteristic: update.characteristic)
            pendingWrites[key, default: []].append(PendingWrite(value: update.value, source: source, deadline: now.addingTimeInterval(10)))
            if pendingWrites[key]!.count > 8 { pendingWrites[key]!.removeFirst() }
        }
        switch entry.source {
        case .zigbee2mqtt(let bridge, let mapping):
            guard let payload = try? mapping.encode(updates, current: entry.accessory) else { return }
            counters.deviceWrites += 1
            emit(.device(.zigbee2mqtt(bridge: bridge, device: mapping.friendlyName, endpoint: nil, .set, payload)))
        case .explicit(let mapping):
            var optimistic: [CharacteristicUpdate] = []
            for update in updates {
                guard
                    let binding = mapping.bindings.first(where: {
                        $0.service == update.service && $0.characteristic == update.characteristic
                    }),
                    let set = binding.set, let characteristic = entry.accessory[update.service]?[update.characteristic]
                else { continue }
                switch set.payload(for: update.value, characteristic: characteristic) {
                case .success(let payload):
                    counters.deviceWrites += 1
                    emit(.device(.mqtt(topic: set.topic, payload: payload, retain: set.retain)))
                    // Nothing will report it back: take the write as the new state.
                    if binding.state == nil { optimistic.append(update) }
                case .failure(let problem):
                    notice(.warning, .api, "\(id)/\(update.service)/\(update.characteristic): \(problem)")
                }
            }
            if !optimistic.isEmpty { apply(optimistic, to: id, origin: "write") }
        }
    }
}
