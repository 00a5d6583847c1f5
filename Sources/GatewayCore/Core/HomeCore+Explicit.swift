import Foundation
import HomeModel
import Mappings

extension HomeCore {
    /// Adds an accessory from a `source: mqtt` file; `DeviceSources` routes its topics.
    mutating func addExplicit(_ mapping: MQTTAccessoryMapping) {
        var accessory = mapping.accessory
        accessory.reachable = mapping.availability == nil
        if let old = table[accessory.id] { AccessoryTable.carryValues(from: old.accessory, into: &accessory) }
        insert(Entry(accessory: accessory, source: .explicit(mapping), deviceOnline: accessory.reachable))
    }

    /// A value from a `source: mqtt` accessory's state topic.
    mutating func explicitValue(
        _ topic: String, _ id: String, _ service: String, _ characteristic: String,
        _ value: Result<CharacteristicValue, Transforms.Failure>, seen: Bool
    ) {
        guard case .explicit? = table[id]?.source else { return }
        if seen { table.seen(id, at: now) }
        switch value {
        case .success(let value):
            apply([CharacteristicUpdate(service: service, characteristic: characteristic, value: value)], to: id, origin: topic)
        case .failure(let problem):
            counters.invalid += 1
            notice(.warning, .devices, "\(topic): \(id)/\(service)/\(characteristic): \(problem)")
        }
    }

    /// A `source: mqtt` accessory's availability.
    mutating func explicitReachable(_ topic: String, _ id: String, _ online: Result<Bool, Transforms.Failure>) {
        guard case .explicit? = table[id]?.source else { return }
        switch online {
        case .success(let online):
            table.setDeviceOnline(id, online, heard: false)
            setReachable(id, online, reason: "its availability topic says it is offline")
        case .failure(let problem):
            counters.invalid += 1
            notice(.warning, .devices, "\(topic): \(problem)")
        }
    }
}
