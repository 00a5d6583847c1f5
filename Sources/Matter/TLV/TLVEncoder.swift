/// Writes Matter TLV: integers in their smallest width, lengths in the smallest field that holds them.
public enum TLVEncoder {
    public static func encode(_ element: TLVElement) -> [UInt8] {
        var out: [UInt8] = []
        write(element, into: &out)
        return out
    }

    /// An anonymous element, the usual top level of a message.
    public static func encode(_ value: TLVValue) -> [UInt8] {
        encode(TLVElement(.anonymous, value))
    }

    static func write(_ element: TLVElement, into out: inout [UInt8]) {
        let (tagControl, tagBytes) = tagEncoding(element.tag)
        let head = { (type: UInt8) -> [UInt8] in [tagControl << 5 | type] + tagBytes }
        switch element.value {
        case .signed(let value):
            switch value {
            case Int64(Int8.min)...Int64(Int8.max): out += head(0x00) + littleEndian(Int8(value))
            case Int64(Int16.min)...Int64(Int16.max): out += head(0x01) + littleEndian(Int16(value))
            case Int64(Int32.min)...Int64(Int32.max): out += head(0x02) + littleEndian(Int32(value))
            default: out += head(0x03) + littleEndian(value)
            }
        case .unsigned(let value):
            switch value {
            case 0...UInt64(UInt8.max): out += head(0x04) + littleEndian(UInt8(value))
            case 0...UInt64(UInt16.max): out += head(0x05) + littleEndian(UInt16(value))
            case 0...UInt64(UInt32.max): out += head(0x06) + littleEndian(UInt32(value))
            default: out += head(0x07) + littleEndian(value)
            }
        case .bool(let value): out += head(value ? 0x09 : 0x08)
        case .float(let value): out += head(0x0A) + littleEndian(value.bitPattern)
        case .double(let value): out += head(0x0B) + littleEndian(value.bitPattern)
        case .utf8(let string): out += lengthPrefixed(Array(string.utf8), base: 0x0C, head: head)
        case .bytes(let bytes): out += lengthPrefixed(bytes, base: 0x10, head: head)
        case .null: out += head(0x14)
        case .structure(let members), .array(let members), .list(let members):
            out += head(element.value.containerType)
            for member in members { write(member, into: &out) }
            out.append(0x18)
        }
    }

    /// A string's head with the smallest length field, its length, and its bytes.
    private static func lengthPrefixed(_ bytes: [UInt8], base: UInt8, head: (UInt8) -> [UInt8]) -> [UInt8] {
        switch bytes.count {
        case 0...0xFF: head(base) + [UInt8(bytes.count)] + bytes
        case 0...0xFFFF: head(base + 1) + littleEndian(UInt16(bytes.count)) + bytes
        default: head(base + 2) + littleEndian(UInt32(bytes.count)) + bytes
        }
    }

    private static func tagEncoding(_ tag: TLVTag) -> (UInt8, [UInt8]) {
        switch tag {
        case .anonymous: (0, [])
        case .context(let n): (1, [n])
        case .commonProfile(let n): n <= 0xFFFF ? (2, littleEndian(UInt16(n))) : (3, littleEndian(n))
        case .implicitProfile(let n): n <= 0xFFFF ? (4, littleEndian(UInt16(n))) : (5, littleEndian(n))
        case .fullyQualified(let vendor, let profile, let n):
            n <= 0xFFFF
                ? (6, littleEndian(vendor) + littleEndian(profile) + littleEndian(UInt16(n)))
                : (7, littleEndian(vendor) + littleEndian(profile) + littleEndian(n))
        }
    }
}

extension TLVValue {
    fileprivate var containerType: UInt8 {
        switch self {
        case .structure: 0x15
        case .array: 0x16
        default: 0x17
        }
    }
}

/// The little-endian bytes of an integer.
func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}
