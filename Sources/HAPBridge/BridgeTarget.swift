import HAP
import HomeModel

/// What a HAP characteristic id stands for on the bridge.
enum BridgeTarget: Sendable, Hashable {
    /// A characteristic of the home: its place in the layout's `homes`, which holds its path,
    /// metadata and value. They are kept out of the table of targets, whose every entry is as large
    /// as its largest case: most targets are these, and inline they took a megabyte and a half with
    /// 400 devices (docs/performance.md, "The Matter bridge").
    case home(Int)
    /// AccessoryInformation and ProtocolInformation: fixed text the bridge answers itself.
    case fixed(HAPValue)
    /// AccessoryInformation's Identify of an accessory (nil: the bridge).
    case identify(accessory: String?)
    /// A service's Name, or its ConfiguredName (`configured`), which a controller may write.
    case serviceName(accessory: String, service: String, configured: Bool)
}

/// A characteristic of the home on the bridge: where it is, its metadata, and its value as last reported.
struct HomeTarget: Sendable, Hashable {
    var path: CharacteristicPath
    var characteristic: Characteristic
}

/// A service of an accessory, by their ids.
struct ServiceReference: Sendable, Hashable {
    var accessory: String
    var service: String
}
