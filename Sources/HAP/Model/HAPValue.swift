/// A characteristic value as HAP carries it in JSON.
public enum HAPValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// `tlv8` and `data` formats: bytes, base64 in JSON.
    case data([UInt8])

    public var description: String {
        switch self {
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .data(let value): "<\(value.count) bytes>"
        }
    }

    /// The value as a number, for range checks.
    var number: Double? {
        switch self {
        case .bool(let value): value ? 1 : 0
        case .int(let value): Double(value)
        case .double(let value): value
        case .string, .data: nil
        }
    }
}
