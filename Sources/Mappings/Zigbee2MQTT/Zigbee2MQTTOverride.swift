/// What a mapping file says about one Zigbee2MQTT device, by friendly name or IEEE address.
public struct Zigbee2MQTTOverride: Sendable, Hashable {
    /// How a switch or an occupancy sensor appears.
    public enum ServiceChoice: String, Sendable, Hashable, CaseIterable {
        case outlet, lightbulb, `switch`, motion, occupancy
    }

    /// Which of a device's settings its `settings` service shows.
    public enum SettingsChoice: String, Sendable, Hashable, CaseIterable {
        /// Those Zigbee2MQTT does not mark as configuration (`category: config`).
        case `default`
        /// Every settable expose, configuration too.
        case all
        /// None: no settings service.
        case none
    }

    public var name: String?
    public var room: String?
    public var exclude: Bool
    public var excludeProperties: Set<String>
    public var service: ServiceChoice?
    /// Exposes that are left out unless asked for (`device_temperature`).
    public var includeProperties: Set<String> = []
    /// On a group: its member devices get no accessory of their own (the group stands for them).
    public var hideMembers = false
    /// A cover whose 0 is open: positions mirrored both ways (as Zigbee2MQTT's own `invert_cover`).
    public var invertPosition = false
    public var settings = SettingsChoice.default
    /// What `include_properties` may name.
    public static let includable: Set<String> = ["device_temperature"]

    public init(
        name: String? = nil, room: String? = nil, exclude: Bool = false, excludeProperties: Set<String> = [], service: ServiceChoice? = nil,
        includeProperties: Set<String> = []
    ) {
        self.includeProperties = includeProperties
        self.name = name
        self.room = room
        self.exclude = exclude
        self.excludeProperties = excludeProperties
        self.service = service
    }
}
