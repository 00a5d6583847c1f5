/// Where an accessory is and what it is called in the home; both are stored, apart from its mapping.
public enum AccessoryCommand: Sendable {
    case assignRoom(accessory: String, room: String, home: String?)
    /// nil gives the accessory its mapping's name back.
    case rename(String, to: String?)

    /// Whether it changes what is stored: its reply is given only once that is committed.
    public var changesHome: Bool {
        switch self {
        case .assignRoom, .rename: true
        }
    }
}
