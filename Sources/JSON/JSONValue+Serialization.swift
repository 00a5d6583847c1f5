extension JSONValue {
    /// Compact JSON. Sorted keys give stable output, as Zigbee2MQTT's own messages have.
    /// Non-finite doubles, which JSON cannot carry, are written as null.
    public func serialized(sortedKeys: Bool = true) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out, sortedKeys: sortedKeys)
        return String(decoding: out, as: UTF8.self)
    }

    public func serializedBytes(sortedKeys: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out, sortedKeys: sortedKeys)
        return out
    }

    public func write(to out: inout [UInt8], sortedKeys: Bool = true) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            if !d.isFinite {
                out.append(contentsOf: "null".utf8)
            } else if d == d.rounded(), abs(d) < 1e15 {
                if d == 0, d.sign == .minus { out.append(UInt8(ascii: "-")) }  // Int(-0.0) drops the sign
                out.append(contentsOf: String(Int(d)).utf8)
                out.append(contentsOf: ".0".utf8)
            } else {
                out.append(contentsOf: d.description.utf8)
            }
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            var first = true
            let pairs = sortedKeys ? fields.sorted { $0.key < $1.key } : Array(fields)
            for (key, value) in pairs {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string literal, quotes and escapes included: for writers that put known keys and
    /// values straight into bytes without building a `JSONValue` first.
    public static func writeString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escapes: copy them whole. (Scanned as a buffer: the generic
        // `contains(where:)` on the UTF-8 view cost a measurable share of a reading; docs/performance.md.)
        let copied = string.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
