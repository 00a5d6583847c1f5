import Synchronization

/// A HAP characteristic type and its metadata, as the catalogue defines it. A class, so the
/// characteristics of a type share one copy of its metadata (a house of 1,000 devices has some
/// 12,000 characteristics); immutable, so it is still a value in all but identity.
public final class CharacteristicType: Sendable, Hashable, CustomStringConvertible {
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

    /// HAP's units, and any other a custom characteristic states (`hPa`, `min`).
    public struct Unit: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let celsius = Unit(rawValue: "celsius")
        public static let percentage = Unit(rawValue: "percentage")
        public static let arcdegrees = Unit(rawValue: "arcdegrees")
        public static let lux = Unit(rawValue: "lux")
        public static let seconds = Unit(rawValue: "seconds")
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

    public init(
        name: String, hapName: String, uuid: String, format: Format, unit: Unit?, minValue: Double?, maxValue: Double?,
        minStep: Double?, validValues: [String: Int], permissions: Permissions, maxLength: Int?
    ) {
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

    /// A characteristic HAP does not define: homegate's own (a device setting) or a vendor's (Eve's air pressure).
    public var isCustom: Bool { !uuid.hasSuffix(Self.appleBase) }
    static let appleBase = "-0000-1000-8000-0026BB765291"

    /// A characteristic of homegate's own, for what a device has and HAP does not: its UUID is
    /// made from the name, so it stays the same across restarts and devices. One the device never
    /// reports (a light's `effect`) is write-only.
    public static func custom(
        _ name: String, format: Format, unit: Unit? = nil, minValue: Double? = nil, maxValue: Double? = nil,
        minStep: Double? = nil, readable: Bool = true, writable: Bool
    ) -> CharacteristicType {
        var permissions: Permissions = []
        if readable { permissions.formUnion([.read, .notify]) }
        if writable { permissions.insert(.write) }
        let key = CustomKey(
            name: name, format: format, unit: unit, minValue: minValue, maxValue: maxValue, minStep: minStep, permissions: permissions)
        return customs.withLock { customs in
            if let known = customs[key] { return known }
            let type = CharacteristicType(
                name: name, hapName: name.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(),
                uuid: homegateUUID(name), format: format, unit: unit, minValue: minValue, maxValue: maxValue, minStep: minStep,
                validValues: [:], permissions: permissions, maxLength: nil)
            if customs.count < 4_096 { customs[key] = type }  // names come from devices: never without bound
            return type
        }
    }

    /// Every device of a model has the same settings: one type for each, not one per device.
    private struct CustomKey: Hashable {
        var name: String
        var format: Format
        var unit: Unit?
        var minValue: Double?
        var maxValue: Double?
        var minStep: Double?
        var permissions: Permissions
    }

    private static let customs = Mutex<[CustomKey: CharacteristicType]>([:])

    /// `XXXXXXXX-686F-6D65-6761-7465XXXXXXXX` ("homegate" in the middle), from a 64-bit FNV-1a hash of `name`.
    static func homegateUUID(_ name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return "\(hex(hash >> 32, 8))-686F-6D65-6761-7465\(hex(hash & 0xFFFF_FFFF, 8))"
    }

    /// Eve's air pressure, in hPa, which the Eve app shows (and homebridge-z2m uses).
    public static let air_pressure = CharacteristicType(
        name: "air_pressure", hapName: "EveAirPressure", uuid: "E863F10F-079E-48FF-8F27-9C2605A29F52", format: .float,
        unit: Unit(rawValue: "hPa"), minValue: 300, maxValue: 1100, minStep: 0.1, validValues: [:], permissions: [.read, .notify],
        maxLength: nil)

    public var isWritable: Bool { permissions.contains(.write) }
    public var isReadable: Bool { permissions.contains(.read) }
    public var description: String { name }

    private static let byName: [String: CharacteristicType] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    /// The catalogue entry for a snake_case name.
    public static func named(_ name: String) -> CharacteristicType? { byName[name] }

    public static func == (a: CharacteristicType, b: CharacteristicType) -> Bool { a.uuid == b.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}
