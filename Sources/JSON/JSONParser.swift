/// Why a document is not JSON, and where.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// Byte offset into the input.
    public var offset: Int

    public var description: String { "\(message) at offset \(offset)" }
}

extension JSONValue {
    /// The deepest nesting accepted: hostile input must not exhaust the stack.
    public static let maximumDepth = 64

    /// Parses an RFC 8259 document. Anything after the value but white space is an error.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONError) {
        let result: Result<JSONValue, JSONError> =
            bytes.withContiguousStorageIfAvailable { Self.parse($0) }
            ?? Array(bytes).withUnsafeBufferPointer { Self.parse($0) }
        self = try result.get()
    }

    public init(parsing text: String) throws(JSONError) {
        var text = text
        let result = text.withUTF8 { Self.parse($0) }
        self = try result.get()
    }

    /// Parses one element of a top-level array on its own (`elementRanges(ofArray:)`), its nesting
    /// counted from the array's, as when the array is parsed whole.
    public init(parsingElement bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        self = try Self.parse(bytes, depth: 1).get()
    }

    private static func parse(_ buffer: UnsafeBufferPointer<UInt8>, depth: Int = 0) -> Result<JSONValue, JSONError> {
        var parser = JSONParser(buffer)
        do throws(JSONError) {
            parser.skipWhitespace()
            let value = try parser.value(depth: depth)
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected \(parser.describeCurrent()) after the value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ message: String) -> JSONError { JSONError(message: message, offset: index) }

    func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        return byte >= 0x20 && byte < 0x7F ? "character '\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected \(describeCurrent())")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected \(describeCurrent())") }
        let start = word.utf8Start
        for i in 0..<count where bytes[index + i] != start[i] {
            throw error("unexpected \(describeCurrent())")
        }
        index += count
    }

    private mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw error("nesting deeper than \(JSONValue.maximumDepth)") }
        index += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a string key, found \(describeCurrent())")
            }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':', found \(describeCurrent())") }
            index += 1
            skipWhitespace()
            fields[key] = try value(depth: depth)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
            throw error("expected ',' or '}', found \(describeCurrent())")
        }
    }

    private mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw error("nesting deeper than \(JSONValue.maximumDepth)") }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error("expected ',' or ']', found \(describeCurrent())")
        }
    }
}
