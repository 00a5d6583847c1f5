/// Where an accessory is and what it is called in the home (both stored, apart from its mapping),
/// and asking it to show itself.
public enum AccessoryCommand: Sendable {
    case assignRoom(accessory: String, room: String, home: String?)
    /// nil gives the accessory its mapping's name back.
    case rename(String, to: String?)
    /// Names one of the accessory's services (a tile of a multi-gang switch); nil gives it its
    /// mapping's name back.
    case renameService(String, service: String, to: String?)
    /// Makes the device show itself (a light blinks, a sensor flashes its LED), so that a person can
    /// tell which one it is: Zigbee2MQTT's `identify`, or else a light's `blink` effect.
    case identify(String)

    /// Whether it changes what is stored: its reply is given only once that is committed.
    public var changesHome: Bool {
        switch self {
        case .assignRoom, .rename, .renameService: true
        case .identify: false
        }
    }
}
