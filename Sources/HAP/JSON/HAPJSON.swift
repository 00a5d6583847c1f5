import Foundation

/// A JSON value read from a controller's body, kept exact: booleans are not numbers and
/// integers are not doubles.
enum HAPJSON: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([HAPJSON])
    case object([String: HAPJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([HAPJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: HAPJSON].self))
        }
    }

    static func parse(_ bytes: [UInt8]) throws(HAPError) -> HAPJSON {
        do {
            return try JSONDecoder().decode(HAPJSON.self, from: Data(bytes))
        } catch {
            throw .malformedJSON("the body is not JSON (\(bytes.count) bytes)")
        }
    }

    subscript(key: String) -> HAPJSON? {
        if case .object(let object) = self { object[key] } else { nil }
    }

    var int: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value == value.rounded() && abs(value) < 1e15: Int(value)
        default: nil
        }
    }

    var bool: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    var array: [HAPJSON]? {
        if case .array(let value) = self { value } else { nil }
    }
}
