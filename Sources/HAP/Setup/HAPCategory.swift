/// The accessory category of the TXT record's `ci` and of the setup URI.
public struct HAPCategory: Sendable, Hashable, RawRepresentable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static let other = HAPCategory(rawValue: 1)
    public static let bridge = HAPCategory(rawValue: 2)
    public static let fan = HAPCategory(rawValue: 3)
    public static let lightbulb = HAPCategory(rawValue: 5)
    public static let outlet = HAPCategory(rawValue: 7)
    public static let programmableSwitch = HAPCategory(rawValue: 15)
}
