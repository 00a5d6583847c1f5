import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// Adds an accessory from a `source: mqtt` file and routes its topics.
    mutating func addExplicit(_ mapping: MQTTAccessoryMapping) {
        var accessory = mapping.accessory
        accessory.reachable = mapping.availability == nil
        if let old = entries[accessory.id] { Self.carryValues(from: old.accessory, into: &accessory) }
        insert(Entry(accessory: accessory, source: .explicit(mapping), deviceOnline: accessory.reachable))
        for (index, binding) in mapping.bindings.enumerated() {
            if let state = binding.state { stateRoutes[state.topic, default: []].append((accessory.id, index)) }
        }
        if let availability = mapping.availability { availabilityRoutes[availability.topic, default: []].append(accessory.id) }
    }

    mutating func removeExplicitRoutes(_ id: String) {
        for topic in Array(stateRoutes.keys) {
            stateRoutes[topic]?.removeAll { $0.accessory == id }
            if stateRoutes[topic]?.isEmpty == true { stateRoutes[topic] = nil }
        }
        for topic in Array(availabilityRoutes.keys) {
            availabilityRoutes[topic]?.removeAll { $0 == id }
            if availabilityRoutes[topic]?.isEmpty == true { availabilityRoutes[topic] = nil }
        }
    }

    mutating func handleExplicitState(_ message: Incoming, _ routes: [(accessory: String, binding: Int)]) {
        for route in routes {
            guard let entry = entries[route.accessory], case .explicit(let mapping) = entry.source,
                  let state = mapping.bindings[route.binding].state else { continue }
            let binding = mapping.bindings[route.binding]
            guard let characteristic = entry.accessory[binding.service]?[binding.characteristic] else { continue }
            switch state.value(from: message.payload, for: characteristic) {
            case .success(let value):
                apply([CharacteristicUpdate(service: binding.service, characteristic: binding.characteristic, value: value)],
                      to: route.accessory, origin: message.topic)
            case .failure(let problem):
                counters.invalid += 1
                notice(.warning, .devices, "\(message.topic): \(route.accessory)/\(binding.service)/\(binding.characteristic): \(problem)")
            }
        }
    }

    mutating func handleExplicitAvailability(_ message: Incoming, _ ids: [String]) {
        for id in ids {
            guard let entry = entries[id], case .explicit(let mapping) = entry.source, let availability = mapping.availability else { continue }
            let online: Bool
            switch availability.isOnline(message.payload) {
            case .success(let value):
                online = value
            case .failure(let problem):
                counters.invalid += 1
                notice(.warning, .devices, "\(message.topic): \(problem)")
                continue
            }
            entries[id]!.deviceOnline = online
            setReachable(id, online)
        }
    }
}
