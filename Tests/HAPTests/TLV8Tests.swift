import HAP
import Testing

@Suite("TLV8")
struct TLV8Tests {
    @Test("short items encode as type, length, value")
    func shortItems() throws {
        let tlv = TLV8([(.state, [1]), (.method, [0])])
        #expect(tlv.encoded() == [0x06, 0x01, 0x01, 0x00, 0x01, 0x00])
        #expect(try TLV8(decoding: tlv.encoded()) == tlv)
    }

    @Test("a 300-byte value goes out as 255 + 45 and comes back as one")
    func fragments() throws {
        let value = (0..<300).map { UInt8($0 % 256) }
        let bytes = TLV8([(.publicKey, value), (.state, [2])]).encoded()
        #expect(bytes.count == 2 + 255 + 2 + 45 + 3)
        #expect(Array(bytes[0..<2]) == [0x03, 0xFF])
        #expect(Array(bytes[257..<259]) == [0x03, 45])
        let decoded = try TLV8(decoding: bytes)
        #expect(decoded[.publicKey] == value)
        #expect(decoded.byte(.state) == 2)
    }

    @Test("a value of exactly 255 bytes followed by another of its type stays apart")
    func exactFragment() throws {
        let first = [UInt8](repeating: 7, count: 255)
        let tlv = TLV8([(.identifier, first), (.identifier, [1, 2])])
        let decoded = try TLV8(decoding: tlv.encoded())
        #expect(decoded.groups.map { $0[.identifier] } == [first, [1, 2]])
    }

    @Test("empty values and separators")
    func emptyAndSeparators() throws {
        let tlv = TLV8([(.identifier, Array("a".utf8)), (.separator, []), (.identifier, Array("b".utf8))])
        #expect(tlv.encoded() == [0x01, 0x01, 0x61, 0xFF, 0x00, 0x01, 0x01, 0x62])
        #expect(try TLV8(decoding: tlv.encoded()).groups.count == 2)
    }

    @Test("truncated input is refused with the offset", arguments: [[0x06] as [UInt8], [0x06, 0x02, 0x01], [0x06, 0x01, 0x01, 0x03]])
    func truncated(bytes: [UInt8]) {
        #expect(throws: HAPError.self) { try TLV8(decoding: bytes) }
    }
}
