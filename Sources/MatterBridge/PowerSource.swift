import GatewayCore
import HomeModel
import Matter

/// Power Source (0x002F) with the Battery feature, on the Bridged Node of an accessory that has a
/// battery service: the percentage left and whether it is low. Status Active, Order 0;
/// whether the battery can be replaced is not known (Unspecified).
enum PowerSource {
    static let cluster: UInt32 = 0x002F
    static let deviceType: (type: UInt32, revision: UInt16) = (0x0011, 1)

    static func battery(of accessory: Accessory) -> Service? {
        accessory.services.first { $0.type == .battery_service }
    }

    static func cluster(_ battery: Service, endpoints: [UInt16]) -> DataModel.Cluster {
        var attributes: [UInt32: TLVValue] = [
            0x0000: .unsigned(1),  // Status: active
            0x0001: .unsigned(0),  // Order
            0x0002: .utf8("Battery"),  // Description
            0x000C: .null,  // BatPercentRemaining, in half percents
            0x000E: .unsigned(0),  // BatChargeLevel: OK
            0x000F: .bool(false),  // BatReplacementNeeded
            0x0010: .unsigned(0),  // BatReplaceability: unspecified
            0x001F: .array(endpoints.map { TLVElement(.unsigned(UInt64($0))) }),  // EndpointList
            0xFFFC: .unsigned(0x02),  // Battery
            0xFFFD: .unsigned(2),
        ]
        for characteristic in battery.characteristics {
            guard let value = characteristic.value else { continue }
            for (attribute, matter) in Self.attributes(characteristic.name, value) { attributes[attribute] = matter }
        }
        return DataModel.Cluster(attributes: attributes)
    }

    /// The attributes a battery characteristic's value sets: (attribute, value).
    static func attributes(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, TLVValue)] {
        guard let number = value.number else { return [] }
        switch characteristic {
        case "battery_level": return [(0x000C, .unsigned(UInt64(min(200, max(0, (number * 2).rounded())))))]
        // HomeKit's low battery is a warning: the battery wants replacing soon.
        case "status_low_battery": return [(0x000E, .unsigned(number == 1 ? 1 : 0)), (0x000F, .bool(number == 1))]
        default: return []
        }
    }
}

extension EndpointLayout {
    /// Power Source on each accessory's Bridged Node with a battery, Power Source among its device
    /// types: a single endpoint's, or a composed device's parent's (as the Bridged Node device type
    /// has it and the SDK's bridge-app serves it), its EndpointList the parent and children.
    mutating func addPowerSources(_ snapshot: HomeSnapshot) {
        for accessory in snapshot.accessories {
            guard let node = nodes[accessory.id], let battery = PowerSource.battery(of: accessory) else { continue }
            batteries[accessory.id] = battery.id
            let powered = [node] + (byAccessory[accessory.id] ?? []).filter { $0 != node }
            clusters[node]?[PowerSource.cluster] = PowerSource.cluster(battery, endpoints: powered)
            guard case .array(let types)? = clusters[node]?[Cluster.descriptor]?.attributes[0x0000] else { continue }
            let powerSource = TLVElement(
                .structure([
                    TLVElement(.context(0), .unsigned(UInt64(PowerSource.deviceType.type))),
                    TLVElement(.context(1), .unsigned(UInt64(PowerSource.deviceType.revision))),
                ]))
            clusters[node]?[Cluster.descriptor]?.attributes[0x0000] = .array(types + [powerSource])
        }
    }

    /// A battery characteristic's change as its accessory's Bridged Node has it.
    func powerSourceChanges(_ change: CharacteristicChange) -> [(endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVValue)] {
        guard batteries[change.accessory] == change.service, let node = nodes[change.accessory] else { return [] }
        return PowerSource.attributes(change.characteristic, change.value).map { (node, PowerSource.cluster, $0.0, $0.1) }
    }
}
