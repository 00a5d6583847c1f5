import HAP
import HomeModel

/// What a HAP characteristic id stands for on the bridge.
enum BridgeTarget: Sendable, Hashable {
    /// A characteristic of the home, with its metadata.
    case home(CharacteristicPath, Characteristic)
    /// AccessoryInformation and ProtocolInformation: fixed text the bridge answers itself.
    case fixed(HAPValue)
    /// AccessoryInformation's Identify of an accessory (nil: the bridge).
    case identify(accessory: String?)
    /// A service's Name, or its ConfiguredName (`configured`), which a controller may write.
    case serviceName(accessory: String, service: String, configured: Bool)
}

/// A service of an accessory, by their ids.
struct ServiceReference: Sendable, Hashable {
    var accessory: String
    var service: String
}
