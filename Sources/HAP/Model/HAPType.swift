/// A service or characteristic type: a UUID, written short ("25") when it is on Apple's base
/// UUID (0000XXXX-0000-1000-8000-0026BB765291), as `/accessories` lists it.
public struct HAPType: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The form `/accessories` uses: short hex without leading zeros, or the full uppercase UUID.
    public let description: String

    static let appleBaseSuffix = "-0000-1000-8000-0026BB765291"

    /// A type on Apple's base UUID.
    public init(_ short: UInt32) {
        description = String(short, radix: 16, uppercase: true)
    }

    /// "25", "00000025-0000-1000-8000-0026BB765291" or a vendor UUID.
    public init(_ text: String) {
        let upper = text.uppercased()
        if upper.count == 36, upper.hasSuffix(HAPType.appleBaseSuffix),
            let short = UInt32(upper.prefix(8), radix: 16)
        {
            self.init(short)
        } else if upper.count <= 8, let short = UInt32(upper, radix: 16) {
            self.init(short)
        } else {
            self.init(full: upper)
        }
    }

    private init(full: String) {
        description = full
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Events of these types go out at once, not after the coalescing delay.
    public static let programmableSwitchEvent = HAPType(0x73)
    public static let buttonEvent = HAPType(0x126)
}
