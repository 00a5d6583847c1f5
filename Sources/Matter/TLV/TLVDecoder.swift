/// Reads Matter TLV. Every length is checked against what is left and containers nest at most
/// `maximumDepth` deep, so hostile bytes give a `MatterError.malformedTLV`, never a crash.
public struct TLVDecoder {
    public static let maximumDepth = 16
    private let bytes: [UInt8]
    private var offset = 0

    /// Decodes exactly one element that spans all of `bytes`.
    public static func decode(_ bytes: [UInt8]) throws -> TLVElement {
        var decoder = TLVDecoder(bytes: bytes)
        let element = try decoder.element(depth: 0)
        guard decoder.offset == bytes.count else {
            throw MatterError.malformedTLV("\(bytes.count - decoder.offset) bytes after the element", offset: decoder.offset)
        }
        return element
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func element(depth: Int) throws -> TLVElement {
        let start = offset
        let control = try take(1)[0]
        let type = control & 0x1F
        guard type != 0x18 else { throw MatterError.malformedTLV("end of container outside a container", offset: start) }
        let tag = try readTag(control >> 5)
        return TLVElement(tag, try value(type: type, depth: depth, at: start))
    }

    private mutating func value(type: UInt8, depth: Int, at start: Int) throws -> TLVValue {
        switch type {
        case 0x00: return .signed(Int64(Int8(bitPattern: try take(1)[0])))
        case 0x01: return .signed(Int64(Int16(bitPattern: UInt16(try integer(2)))))
        case 0x02: return .signed(Int64(Int32(bitPattern: UInt32(try integer(4)))))
        case 0x03: return .signed(Int64(bitPattern: try integer(8)))
        case 0x04...0x07: return .unsigned(try integer(1 << Int(type - 0x04)))
        case 0x08: return .bool(false)
        case 0x09: return .bool(true)
        case 0x0A: return .float(Float(bitPattern: UInt32(try integer(4))))
        case 0x0B: return .double(Double(bitPattern: try integer(8)))
        case 0x0C...0x0F:
            let data = try take(try length(1 << Int(type - 0x0C)))
            guard let string = String(validating: data, as: UTF8.self) else {
                throw MatterError.malformedTLV("a UTF-8 string that is not valid UTF-8", offset: start)
            }
            return .utf8(string)
        case 0x10...0x13: return .bytes(try take(try length(1 << Int(type - 0x10))))
        case 0x14: return .null
        case 0x15...0x17:
            guard depth < Self.maximumDepth else {
                throw MatterError.malformedTLV("containers nested deeper than \(Self.maximumDepth)", offset: start)
            }
            var members: [TLVElement] = []
            while true {
                guard offset < bytes.count else { throw MatterError.malformedTLV("container without its end", offset: offset) }
                if bytes[offset] == 0x18 { offset += 1; break }
                members.append(try element(depth: depth + 1))
            }
            return type == 0x15 ? .structure(members) : type == 0x16 ? .array(members) : .list(members)
        default:
            throw MatterError.malformedTLV("element type 0x\(String(type, radix: 16)) is reserved", offset: start)
        }
    }

    private mutating func readTag(_ control: UInt8) throws -> TLVTag {
        switch control {
        case 0: .anonymous
        case 1: .context(try take(1)[0])
        case 2: .commonProfile(UInt32(try integer(2)))
        case 3: .commonProfile(UInt32(try integer(4)))
        case 4: .implicitProfile(UInt32(try integer(2)))
        case 5: .implicitProfile(UInt32(try integer(4)))
        case 6: .fullyQualified(vendor: UInt16(try integer(2)), profile: UInt16(try integer(2)), tag: UInt32(try integer(2)))
        default: .fullyQualified(vendor: UInt16(try integer(2)), profile: UInt16(try integer(2)), tag: UInt32(try integer(4)))
        }
    }

    private mutating func length(_ width: Int) throws -> Int {
        let start = offset
        let value = try integer(width)
        guard value <= UInt64(bytes.count - offset) else {
            throw MatterError.malformedTLV("a length of \(value) with \(bytes.count - offset) bytes left", offset: start)
        }
        return Int(value)
    }

    private mutating func integer(_ width: Int) throws -> UInt64 {
        try take(width).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private mutating func take(_ count: Int) throws -> [UInt8] {
        guard count <= bytes.count - offset else {
            throw MatterError.malformedTLV("\(count) bytes needed, \(bytes.count - offset) left", offset: offset)
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}
