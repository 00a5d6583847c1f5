public import JSON

/// A characteristic's value. Which case is allowed follows from the characteristic's format.
public enum CharacteristicValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case float(Double)
    case string(String)

    public var json: JSONValue {
        switch self {
        case .bool(let b): .bool(b)
        case .int(let i): .integer(i)
        case .float(let d): .double(d)
        case .string(let s): .string(s)
        }
    }

    /// The value a JSON scalar carries; nil for null, arrays and objects.
    public init?(json: JSONValue) {
        switch json {
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .string(let s): self = .string(s)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .float(let d): d
        default: nil
        }
    }

    public var intValue: Int? {
        switch self {
        case .int(let i): i
        case .float(let d) where d.rounded() == d && abs(d) < 9e18: Int(d)
        default: nil
        }
    }

    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// As JSON, for messages: `true`, `80`, `21.5`, `"x"`.
    public var description: String { json.serialized() }
}
