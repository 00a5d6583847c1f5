/// A characteristic's value format.
public enum HAPFormat: String, Sendable, Hashable, CaseIterable {
    case bool
    case uint8
    case uint16
    case uint32
    case uint64
    case int
    case float
    case string
    case tlv8
    case data

    /// The bounds an integer format allows.
    var integerRange: ClosedRange<Double>? {
        switch self {
        case .uint8: 0...Double(UInt8.max)
        case .uint16: 0...Double(UInt16.max)
        case .uint32: 0...Double(UInt32.max)
        case .uint64: 0...Double(UInt64.max)
        case .int: Double(Int32.min)...Double(Int32.max)
        case .bool, .float, .string, .tlv8, .data: nil
        }
    }
}
