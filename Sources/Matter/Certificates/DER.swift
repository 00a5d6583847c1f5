/// A DER writer for the few ASN.1 shapes Matter needs: X.509 certificates (the DAC, and the X.509
/// form of Matter's TLV certificates, whose signatures cover it), a PKCS #10 request for CSRRequest
/// and the CMS envelope of a Certification Declaration. Values are built bottom up and encoded once.
public indirect enum DER: Sendable, Equatable {
    case sequence([DER])
    case set([DER])
    case integer([UInt8])
    /// An INTEGER whose content bytes are given as they are (a certificate's serial number).
    case integerContent([UInt8])
    case boolean(Bool)
    case objectIdentifier([UInt64])
    case utf8String(String)
    case printableString(String)
    case ia5String(String)
    case octetString([UInt8])
    /// A bit string with no unused bits in its last byte.
    case bitString([UInt8])
    /// A bit string of flags, bit 0 first (X.509 KeyUsage): trailing zero bits are left out.
    case namedBits(UInt16)
    case utcTime(String)
    case generalizedTime(String)
    case null
    /// `[n]` wrapping the whole encoding of its content (EXPLICIT).
    case explicit(UInt8, DER)
    /// `[n]` replacing a primitive's tag (IMPLICIT), with its content bytes.
    case implicitPrimitive(UInt8, [UInt8])
    /// `[n]` replacing a constructed value's tag (IMPLICIT), with its members.
    case implicitConstructed(UInt8, [DER])
    /// Bytes already in DER.
    case raw([UInt8])

    public var encoded: [UInt8] {
        switch self {
        case .sequence(let members): Self.tlv(0x30, members.flatMap(\.encoded))
        case .set(let members): Self.tlv(0x31, members.flatMap(\.encoded))
        case .integer(let bytes): Self.tlv(0x02, Self.positiveInteger(bytes))
        case .integerContent(let bytes): Self.tlv(0x02, bytes)
        case .boolean(let value): Self.tlv(0x01, [value ? 0xFF : 0x00])
        case .objectIdentifier(let arcs): Self.tlv(0x06, Self.oid(arcs))
        case .utf8String(let text): Self.tlv(0x0C, Array(text.utf8))
        case .printableString(let text): Self.tlv(0x13, Array(text.utf8))
        case .ia5String(let text): Self.tlv(0x16, Array(text.utf8))
        case .octetString(let bytes): Self.tlv(0x04, bytes)
        case .bitString(let bytes): Self.tlv(0x03, [0] + bytes)
        case .namedBits(let flags): Self.tlv(0x03, Self.namedBits(flags))
        case .utcTime(let text): Self.tlv(0x17, Array(text.utf8))
        case .generalizedTime(let text): Self.tlv(0x18, Array(text.utf8))
        case .null: [0x05, 0x00]
        case .explicit(let tag, let content): Self.tlv(0xA0 | tag, content.encoded)
        case .implicitPrimitive(let tag, let bytes): Self.tlv(0x80 | tag, bytes)
        case .implicitConstructed(let tag, let members): Self.tlv(0xA0 | tag, members.flatMap(\.encoded))
        case .raw(let bytes): bytes
        }
    }

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// An unsigned big-endian number as a DER INTEGER's content: no redundant leading zeros, and a
    /// zero byte in front when the top bit is set (so it stays positive).
    static func positiveInteger(_ bytes: [UInt8]) -> [UInt8] {
        var trimmed = Array(bytes.drop { $0 == 0 })
        if trimmed.isEmpty { trimmed = [0] }
        return trimmed[0] & 0x80 != 0 ? [0] + trimmed : trimmed
    }

    static func oid(_ arcs: [UInt64]) -> [UInt8] {
        guard arcs.count >= 2 else { return [] }
        return ([arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2)).flatMap { arc -> [UInt8] in
            var out: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                out.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            return out
        }
    }

    /// X.509's named bit list: bit n of `flags` is bit n of the string (the first is the top bit of
    /// the first byte), trailing zero bits dropped and counted in the leading byte.
    static func namedBits(_ flags: UInt16) -> [UInt8] {
        guard flags != 0 else { return [0] }
        let highest = 15 - flags.leadingZeroBitCount
        let byteCount = highest / 8 + 1
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for bit in 0...highest where flags & (1 << bit) != 0 {
            bytes[bit / 8] |= 0x80 >> UInt8(bit % 8)
        }
        return [UInt8(byteCount * 8 - 1 - highest)] + bytes
    }
}

// Computed, not stored: a global holding an indirect enum keeps its box behind a tagged pointer,
// which LeakSanitizer (in the fuzz targets) cannot see as a reference and reports as a leak.
extension DER {
    static var ecdsaWithSHA256: DER { .sequence([.objectIdentifier([1, 2, 840, 10045, 4, 3, 2])]) }
    static var sha256: DER { .sequence([.objectIdentifier([2, 16, 840, 1, 101, 3, 4, 2, 1])]) }

    /// SubjectPublicKeyInfo for a P-256 point (65 bytes, uncompressed).
    static func p256PublicKey(_ point: [UInt8]) -> DER {
        .sequence([
            .sequence([.objectIdentifier([1, 2, 840, 10045, 2, 1]), .objectIdentifier([1, 2, 840, 10045, 3, 1, 7])]),
            .bitString(point),
        ])
    }

    /// A DER ECDSA signature (SEQUENCE of r and s) from Matter's raw form r ‖ s (64 bytes).
    static func ecdsaSignature(raw: [UInt8]) -> [UInt8] {
        DER.sequence([.integer(Array(raw.prefix(32))), .integer(Array(raw.suffix(32)))]).encoded
    }
}
