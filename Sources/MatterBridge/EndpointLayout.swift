import Crypto
import GatewayCore
import HomeModel
import Matter

/// One bridged service of an accessory on an endpoint of its own (a Bridged Node, or a composed
/// device's child).
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
///
/// An accessory with one bridged service is one endpoint: the device's type and Bridged Node, with
/// Bridged Device Basic Information. One with several is a composed bridged device (Matter 1.3 core
/// 9.12): a parent endpoint of type Bridged Node alone, carrying Bridged Device Basic Information
/// (the accessory's name, reachability) and its Power Source, its PartsList naming one child
/// endpoint per service, each child its device type and clusters alone, a Descriptor TagList telling
/// it from its siblings (a number, the service's name). The Aggregator lists every one of them.
struct EndpointLayout: Sendable {
    var endpoints: [UInt16: BridgedEndpoint] = [:]
    /// Each accessory's endpoints (its services', not the parent's).
    var byAccessory: [String: [UInt16]] = [:]
    /// Each accessory's Bridged Node: its one service's endpoint, or the parent of its services'.
    var nodes: [String: UInt16] = [:]
    /// Each endpoint's clusters as laid out (Descriptor, Bridged Device Basic Information, the device's).
    var clusters: [UInt16: [UInt32: DataModel.Cluster]] = [:]
    /// Each accessory's battery service, where it has one (its Power Source).
    var batteries: [String: String] = [:]

    /// Every bridged endpoint, parents and children.
    var parts: [UInt16] { clusters.keys.sorted() }

    static let bridgedNode: (type: UInt32, revision: UInt16) = (0x0013, 3)

    /// What an application invoke or attribute write addressed to an endpoint reaches.
    enum Reached {
        case endpoint(BridgedEndpoint)
        case refused(InteractionStatus)
    }

    /// The bridged endpoint `number` is, or the status to answer: a composed device's parent has
    /// clusters but no commands and no writable attributes (`parent`: UNSUPPORTED_COMMAND or
    /// UNSUPPORTED_WRITE); a number not laid out is UNSUPPORTED_ENDPOINT. The serving bridge and
    /// the offline one (the fuzzer's) answer alike through this.
    func reach(_ number: UInt16?, parent: InteractionStatus) -> Reached {
        guard let number else { return .refused(.unsupportedEndpoint) }
        if let endpoint = endpoints[number] { return .endpoint(endpoint) }
        return .refused(clusters[number] != nil ? parent : .unsupportedEndpoint)
    }

    /// The layout as a running bridge keeps it once its node has the clusters: which endpoints
    /// there are, without the laid-out clusters themselves. The node's model has those, with every
    /// value since; a second, stale copy took a megabyte with 400 devices (docs/performance.md).
    var served: EndpointLayout {
        var kept = self
        kept.clusters = clusters.mapValues { _ in [:] }
        return kept
    }

    /// The bridged accessories' services that Matter has a device type for, numbered from `map`: a
    /// service keeps its number whether it is a Bridged Node of its own or a composed device's child;
    /// a parent is numbered the first time its accessory has two bridged services, after them.
    static func build(_ snapshot: HomeSnapshot, selection: BridgedSelection, map: inout EndpointMap) -> EndpointLayout {
        var layout = EndpointLayout()
        let bridged = Set(selection.bridged(snapshot))
        for accessory in snapshot.accessories where bridged.contains(accessory.id) {
            let devices = served(accessory.services.compactMap { service in BridgedDevice(service).map { (service, $0) } })
            var numbered: [(number: UInt16, service: Service)] = []
            for (service, device) in devices {
                guard let number = map.number(EndpointMap.key(accessory: accessory.id, service: service.id)) else { continue }
                layout.endpoints[number] = BridgedEndpoint(
                    number: number, accessory: accessory.id, service: service.id, device: device,
                    characteristics: Dictionary(service.characteristics.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }),
                    reachable: accessory.reachable)
                if service.type.name == "lightbulb" { layout.endpoints[number]?.effect = EffectSetting(accessory) }
                layout.byAccessory[accessory.id, default: []].append(number)
                var clusters = device.clusters(service)
                clusters[Cluster.descriptor] = .descriptor(deviceTypes: [device.deviceType], parts: [])
                layout.clusters[number] = clusters
                numbered.append((number, service))
            }
            if numbered.count == 1, let (number, service) = numbered.first {
                let key = EndpointMap.key(accessory: accessory.id, service: service.id)
                let type = devices[0].1.deviceType
                layout.clusters[number]?[Cluster.descriptor] = .descriptor(deviceTypes: [type, bridgedNode], parts: [])
                layout.clusters[number]?[Cluster.bridgedDeviceBasicInformation] = basicInformation(
                    accessory, label: accessory.name, uniqueID: uniqueID(key))
                layout.nodes[accessory.id] = number
            } else if numbered.count > 1, let parent = map.number(EndpointMap.key(accessory: accessory.id)) {
                for (position, (number, service)) in numbered.enumerated() {
                    layout.clusters[number]?[Cluster.descriptor]?.tag(position: position + 1, label: service.name ?? service.id)
                }
                layout.clusters[parent] = [
                    Cluster.descriptor: .descriptor(deviceTypes: [bridgedNode], parts: numbered.map(\.number)),
                    Cluster.bridgedDeviceBasicInformation: basicInformation(
                        accessory, label: accessory.name, uniqueID: uniqueID(EndpointMap.key(accessory: accessory.id))),
                ]
                layout.nodes[accessory.id] = parent
            } else {
                // No number left for its parent (all 65,533 taken): not bridged rather than half.
                for (number, _) in numbered {
                    (layout.endpoints[number], layout.clusters[number]) = (nil, nil)
                }
                layout.byAccessory[accessory.id] = nil
            }
        }
        layout.addPowerSources(snapshot)
        return layout
    }

    /// The services of an accessory that are bridged: a lock's buttons are not. They are Zigbee
    /// locks' `action` values (lock, unlock, key_lock, manual_unlock, lock_failure_invalid_pin...),
    /// the lock's report of its operations rather than buttons a person presses; the Door Lock's
    /// state and LockOperation events carry its locking and unlocking, and a controller shows
    /// sixteen Generic Switches beside a lock as sixteen more devices.
    static func served(_ devices: [(Service, BridgedDevice)]) -> [(Service, BridgedDevice)] {
        guard devices.contains(where: { $0.1 == .doorLock }) else { return devices }
        return devices.filter { $0.1 != .genericSwitch }
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

extension DataModel.Cluster {
    /// A composed device's child Descriptor's TagList (feature TagList): its place among its
    /// siblings as Common Number (namespace 0x07, tags 0 to 10 as far as they go) with the
    /// service's name as the tag's label (64 bytes at most), so that two children of one type (a
    /// remote's buttons, a wall switch's two lights) are told apart. A child past the tenth has none.
    mutating func tag(position: Int, label: String) {
        guard position <= 10 else { return }
        attributes[0x0004] = .array([
            TLVElement(
                .structure([
                    TLVElement(.context(0), .null),  // MfgCode: a standard namespace
                    TLVElement(.context(1), .unsigned(0x07)),  // Common Number
                    TLVElement(.context(2), .unsigned(UInt64(position))),
                    TLVElement(.context(3), .utf8(EndpointLayout.truncated(label, bytes: 64))),
                ]))
        ])
        attributes[0xFFFC] = .unsigned(1)  // TagList
    }
}
