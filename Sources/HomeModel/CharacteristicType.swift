/// A HAP characteristic type and its metadata, as the catalogue defines it.
public struct CharacteristicType: Sendable, Hashable, CustomStringConvertible {
    public enum Format: String, Sendable, Hashable {
        case bool, uint8, uint16, uint32, uint64, int, float, string, tlv8, data

        /// The integer range a format can hold, or nil for non-integer formats.
        public var integerRange: ClosedRange<Int>? {
            switch self {
            case .uint8: 0...Int(UInt8.max)
            case .uint16: 0...Int(UInt16.max)
            case .uint32: 0...Int(UInt32.max)
            case .uint64: 0...Int.max
            case .int: Int(Int32.min)...Int(Int32.max)
            default: nil
            }
        }
    }

    public enum Unit: String, Sendable, Hashable {
        case celsius, percentage, arcdegrees, lux, seconds
    }

    public struct Permissions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let read = Permissions(rawValue: 1)
        public static let write = Permissions(rawValue: 2)
        public static let notify = Permissions(rawValue: 4)
        public static let additionalAuthorization = Permissions(rawValue: 8)
        public static let timedWrite = Permissions(rawValue: 16)
        public static let hidden = Permissions(rawValue: 32)
        public static let writeResponse = Permissions(rawValue: 64)
    }

    /// snake_case of the HAP name: `current_temperature`.
    public let name: String
    public let hapName: String
    public let uuid: String
    public let format: Format
    public let unit: Unit?
    public let minValue: Double?
    public let maxValue: Double?
    public let minStep: Double?
    /// Named values (`heat: 1`), snake_case; empty when any value in range is allowed.
    public let validValues: [String: Int]
    public let permissions: Permissions
    public let maxLength: Int?

    public init(name: String, hapName: String, uuid: String, format: Format, unit: Unit?, minValue: Double?, maxValue: Double?,
                minStep: Double?, validValues: [String: Int], permissions: Permissions, maxLength: Int?) {
        self.name = name
        self.hapName = hapName
        self.uuid = uuid
        self.format = format
        self.unit = unit
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.validValues = validValues
        self.permissions = permissions
        self.maxLength = maxLength
    }

    public var isWritable: Bool { permissions.contains(.write) }
    public var isReadable: Bool { permissions.contains(.read) }
    public var description: String { name }

    private static let byName: [String: CharacteristicType] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    /// The catalogue entry for a snake_case name.
    public static func named(_ name: String) -> CharacteristicType? { byName[name] }

    public static func == (a: CharacteristicType, b: CharacteristicType) -> Bool { a.uuid == b.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}
