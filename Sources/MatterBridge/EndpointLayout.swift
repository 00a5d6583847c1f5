import Crypto
import GatewayCore
import HomeModel
import Matter

/// One bridged device: a service of an accessory on an endpoint of its own.
struct BridgedEndpoint: Sendable {
    var number: UInt16
    var accessory: String
    var service: String
    var device: BridgedDevice
    /// The characteristics as the house has them now (metadata and values), by name.
    var characteristics: [String: Characteristic]
    /// Whether the device answers: the house refuses writes to one that does not.
    var reachable: Bool
    /// The accessory's light effect setting, for Identify's TriggerEffect (BridgedEndpoint+Lighting.swift).
    var effect: EffectSetting? = nil
}

/// The house laid out as Matter endpoints: which endpoint is which service, and the data model's
/// application part (the Aggregator and every bridged endpoint). Built from a snapshot and the
/// stored endpoint map; the bridge keeps its values up to date from the events.
struct EndpointLayout: Sendable {
    var endpoints: [UInt16: BridgedEndpoint] = [:]
    /// Each accessory's endpoints.
    var byAccessory: [String: [UInt16]] = [:]
    /// Each endpoint's clusters as laid out (Descriptor, Bridged Device Basic Information, the device's).
    var clusters: [UInt16: [UInt32: DataModel.Cluster]] = [:]
    /// Each accessory's battery service, where it has one (its Power Source).
    var batteries: [String: String] = [:]

    var parts: [UInt16] { endpoints.keys.sorted() }

    /// The bridged accessories' services that Matter has a device type for, numbered from `map`.
    static func build(_ snapshot: HomeSnapshot, selection: BridgedSelection, map: inout EndpointMap) -> EndpointLayout {
        var layout = EndpointLayout()
        let bridged = Set(selection.bridged(snapshot))
        for accessory in snapshot.accessories where bridged.contains(accessory.id) {
            let devices = accessory.services.compactMap { service in BridgedDevice(service).map { (service, $0) } }
            for (service, device) in devices {
                guard let number = map.number(EndpointMap.key(accessory: accessory.id, service: service.id)) else { continue }
                let label = devices.count == 1 ? accessory.name : "\(accessory.name) \(service.name ?? service.id)"
                layout.endpoints[number] = BridgedEndpoint(
                    number: number, accessory: accessory.id, service: service.id, device: device,
                    characteristics: Dictionary(service.characteristics.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }),
                    reachable: accessory.reachable)
                if service.type.name == "lightbulb" { layout.endpoints[number]?.effect = EffectSetting(accessory) }
                layout.byAccessory[accessory.id, default: []].append(number)
                var clusters = device.clusters(service)
                clusters[Cluster.descriptor] = .descriptor(deviceTypes: [device.deviceType, (0x0013, 3)], parts: [])  // + Bridged Node
                clusters[Cluster.bridgedDeviceBasicInformation] = basicInformation(
                    accessory, label: label, uniqueID: uniqueID(EndpointMap.key(accessory: accessory.id, service: service.id)))
                layout.clusters[number] = clusters
            }
        }
        layout.addPowerSources(snapshot)
        return layout
    }

    /// Bridged Device Basic Information (0x0039).
    static func basicInformation(_ accessory: Accessory, label: String, uniqueID: String) -> DataModel.Cluster {
        var attributes: [UInt32: TLVValue] = [
            0x0005: .utf8(truncated(label)),  // NodeLabel
            0x0011: .bool(accessory.reachable),  // Reachable
            0x0012: .utf8(uniqueID),  // UniqueID
            0xFFFC: .unsigned(0), 0xFFFD: .unsigned(4),
        ]
        if let vendor = accessory.manufacturer { attributes[0x0001] = .utf8(truncated(vendor)) }  // VendorName
        if let model = accessory.model { attributes[0x0003] = .utf8(truncated(model)) }  // ProductName
        // SoftwareVersionString, 64 bytes at most.
        if let firmware = accessory.firmware { attributes[0x000A] = .utf8(truncated(firmware, bytes: 64)) }
        return DataModel.Cluster(attributes: attributes)
    }

    /// UniqueID is at most 32 characters, and must never change: a digest of the endpoint's key.
    static func uniqueID(_ key: String) -> String {
        SHA256.hash(data: Array(key.utf8)).prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Matter's names hold 32 bytes at most: cut at a character boundary.
    static func truncated(_ text: String, bytes: Int = 32) -> String {
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= bytes else { break }
            result.append(character)
        }
        return result
    }
}
