import HAP
import HomeModel

/// The home laid out as HAP accessories: the `/accessories` database, and for each characteristic
/// id what it stands for, and back. Built from a snapshot and the persisted identifier map.
struct BridgeLayout: Sendable {
    var accessories: [HAPAccessory] = []
    var targets: [HAPCharacteristicID: BridgeTarget] = [:]
    /// The home's characteristics on the bridge, where `targets` points (`BridgeTarget.home`).
    var homes: [HomeTarget] = []
    var ids: [CharacteristicPath: HAPCharacteristicID] = [:]
    /// Whether each accessory's device answers, by accessory id: kept up to date from the events
    /// (`take`), as the characteristics' values in `targets` are.
    var reachable: [String: Bool] = [:]
    /// Each named service's ConfiguredName, by accessory and service id: a rename is sent to controllers as its event.
    var configuredNames: [ServiceReference: HAPCharacteristicID] = [:]
    /// Each named service's name (Name and ConfiguredName answer it), kept with the layout so a read needs no snapshot.
    var serviceNames: [ServiceReference: String] = [:]
    /// A digest of every aid, iid, type, format, permission and range: it changes when `c#` must.
    var fingerprint = ""

    /// HomeKit refuses a bridge with more bridged accessories than this: a larger house gets several bridges.
    static let maximumBridged = 149

    /// `accessories` are the bridge's, already placed on it by `IdentifierMap.assign`.
    static func build(_ accessories: [Accessory], map: inout IdentifierMap, bridge: BridgeIdentity) -> BridgeLayout {
        var layout = BridgeLayout()
        layout.homes.reserveCapacity(accessories.reduce(0) { $0 + $1.services.reduce(0) { $0 + $1.characteristics.count } })
        layout.addBridge(bridge)
        let numbered = accessories.compactMap { accessory in map.accessories[accessory.id].map { ($0.aid, accessory) } }
        for (aid, accessory) in numbered.sorted(by: { $0.0 < $1.0 }) {
            layout.add(accessory, aid: aid, map: &map)
        }
        layout.fingerprint = Fingerprint.of(layout.accessories)
        return layout
    }

    private mutating func addBridge(_ bridge: BridgeIdentity) {
        let information = AccessoryInformation.service(
            name: bridge.name, manufacturer: "homegate", model: "homegate bridge", serial: bridge.serialNumber,
            firmware: bridge.firmware)
        register(aid: 1, information, identify: nil)
        // ProtocolInformation: the HAP version this bridge speaks.
        let version = HAPCharacteristic(
            iid: 9, type: HAPType(0x37), format: .string, perms: [.pairedRead, .events], value: .string("1.1.0"))
        let protocolInformation = HAPService(iid: 8, type: HAPType(0xA2), characteristics: [version])
        targets[HAPCharacteristicID(aid: 1, iid: 9)] = .fixed(.string("1.1.0"))
        accessories.append(HAPAccessory(aid: 1, services: [information, protocolInformation]))
    }

    private mutating func add(_ accessory: Accessory, aid: Int, map: inout IdentifierMap) {
        let information = AccessoryInformation.service(
            name: accessory.name, manufacturer: accessory.manufacturer ?? "homegate", model: accessory.model ?? accessory.category.rawValue,
            serial: accessory.id, firmware: accessory.firmware ?? "")
        register(aid: aid, information, identify: accessory.id)
        reachable[accessory.id] = accessory.reachable
        var services = [information]
        let names = ServiceNames.names(of: accessory)
        for service in accessory.services where service.type != .accessory_information {
            let serviceIID = map.iid(accessory: accessory.id, key: IdentifierMap.serviceKey(service.id))
            var characteristics: [HAPCharacteristic] = []
            for characteristic in service.characteristics {
                let iid = map.iid(accessory: accessory.id, key: IdentifierMap.characteristicKey(service.id, characteristic.name))
                let id = HAPCharacteristicID(aid: aid, iid: iid)
                let path = CharacteristicPath(accessory: accessory.id, service: service.id, characteristic: characteristic.name)
                let value =
                    characteristic.type == .programmable_switch_event
                    ? nil : characteristic.value.map { Conversion.value($0, format: characteristic.type.format) }
                characteristics.append(Conversion.characteristic(characteristic, iid: iid, value: value))
                targets[id] = .home(homes.count)
                homes.append(HomeTarget(path: path, characteristic: characteristic))
                ids[path] = id
            }
            if let name = names[service.id] {
                // After the service's own characteristics: their iids came first and stay as they were.
                let nameIID = map.iid(accessory: accessory.id, key: IdentifierMap.nameKey(service.id))
                let configuredIID = map.iid(accessory: accessory.id, key: IdentifierMap.configuredNameKey(service.id))
                characteristics += ServiceNames.characteristics(name: name, nameIID: nameIID, configuredIID: configuredIID)
                targets[HAPCharacteristicID(aid: aid, iid: nameIID)] = .serviceName(
                    accessory: accessory.id, service: service.id, configured: false)
                targets[HAPCharacteristicID(aid: aid, iid: configuredIID)] = .serviceName(
                    accessory: accessory.id, service: service.id, configured: true)
                configuredNames[ServiceReference(accessory: accessory.id, service: service.id)] = HAPCharacteristicID(
                    aid: aid, iid: configuredIID)
                serviceNames[ServiceReference(accessory: accessory.id, service: service.id)] = name
            }
            services.append(
                HAPService(
                    iid: serviceIID, type: HAPType(service.type.uuid), primary: service.isPrimary, hidden: service.isHidden,
                    characteristics: characteristics))
        }
        accessories.append(HAPAccessory(aid: aid, services: services))
    }

    /// The home's characteristic `id` stands for, if it is one.
    func home(_ id: HAPCharacteristicID) -> HomeTarget? {
        guard case .home(let index)? = targets[id] else { return nil }
        return homes[index]
    }

    /// Remembers what the AccessoryInformation characteristics answer.
    private mutating func register(aid: Int, _ information: HAPService, identify accessory: String?) {
        for characteristic in information.characteristics {
            let id = HAPCharacteristicID(aid: aid, iid: characteristic.iid)
            if characteristic.type == AccessoryInformation.identify {
                targets[id] = .identify(accessory: accessory)
            } else if let value = characteristic.value {
                targets[id] = .fixed(value)
            }
        }
    }
}
