import HAP
import HomeModel

/// The names the bridge gives services as HAP's Name (23) and ConfiguredName (E3): on iOS 16 and
/// later each tile of an accessory shows its service's name, so a dual relay without them shows
/// two tiles both called by the accessory's name.
enum ServiceNames {
    static let name = HAPType(0x23)
    static let configuredName = HAPType(0xE3)

    /// Whether a service gets a name: every service of Apple's but AccessoryInformation (which has
    /// the accessory's), a hidden one and a remote's service label (no tile of their own), and one
    /// that carries Name or ConfiguredName from its mapping already. homegate's own services
    /// (`settings`) have no tile in the Home app either.
    static func isNamed(_ service: Service) -> Bool {
        service.type != .accessory_information && service.type != .service_label && !service.isHidden
            && service.type.uuid.uppercased().hasSuffix("-0000-1000-8000-0026BB765291")
            && !service.characteristics.contains { $0.type == .name || $0.type == .configured_name }
    }

    /// Each named service's name by service id, as HomeKit takes names: its own (the user's or the
    /// mapping's), else the accessory's, numbered when the accessory has several services of
    /// that type (`Lamp 1`, `Lamp 2`), so that tiles differ.
    static func names(of accessory: Accessory) -> [String: String] {
        let named = accessory.services.filter(isNamed)
        var ofType: [ServiceType: Int] = [:]
        for service in named where service.name == nil { ofType[service.type, default: 0] += 1 }
        var seen: [ServiceType: Int] = [:]
        var names: [String: String] = [:]
        for service in named {
            if let own = service.name {
                names[service.id] = AccessoryInformation.homeKitName(own)
                continue
            }
            seen[service.type, default: 0] += 1
            let numbered = ofType[service.type, default: 0] > 1 ? "\(accessory.name) \(seen[service.type]!)" : accessory.name
            names[service.id] = AccessoryInformation.homeKitName(numbered)
        }
        return names
    }

    /// The two characteristics of a named service: Name, read only, and ConfiguredName, which the
    /// Home app writes when a tile is renamed and is told of a rename made elsewhere.
    static func characteristics(name: String, nameIID: Int, configuredIID: Int) -> [HAPCharacteristic] {
        [
            HAPCharacteristic(iid: nameIID, type: Self.name, format: .string, perms: [.pairedRead], value: .string(name)),
            HAPCharacteristic(
                iid: configuredIID, type: configuredName, format: .string, perms: [.pairedRead, .pairedWrite, .events],
                value: .string(name)),
        ]
    }
}
