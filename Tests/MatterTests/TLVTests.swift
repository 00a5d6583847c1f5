import Testing

@testable import Matter

/// The Matter specification's TLV examples (appendix A.12), both ways.
@Suite("Matter TLV")
struct TLVTests {
    static let examples: [(TLVElement, String)] = [
        (TLVElement(.bool(false)), "08"),
        (TLVElement(.bool(true)), "09"),
        (TLVElement(.signed(42)), "00 2a"),
        (TLVElement(.signed(-17)), "00 ef"),
        (TLVElement(.unsigned(42)), "04 2a"),
        (TLVElement(.signed(422)), "01 a6 01"),
        (TLVElement(.signed(-170000)), "02 f0 67 fd ff"),
        (TLVElement(.signed(40_000_000_000)), "03 00 90 2f 50 09 00 00 00"),
        (TLVElement(.utf8("Hello!")), "0c 06 48 65 6c 6c 6f 21"),
        (TLVElement(.utf8("Tschüs")), "0c 07 54 73 63 68 c3 bc 73"),
        (TLVElement(.bytes([0, 1, 2, 3, 4])), "10 05 00 01 02 03 04"),
        (TLVElement(.null), "14"),
        (TLVElement(.float(0)), "0a 00 00 00 00"),
        (TLVElement(.float(1.0 / 3.0)), "0a ab aa aa 3e"),
        (TLVElement(.float(17.9)), "0a 33 33 8f 41"),
        (TLVElement(.float(.infinity)), "0a 00 00 80 7f"),
        (TLVElement(.float(-.infinity)), "0a 00 00 80 ff"),
        (TLVElement(.double(0)), "0b 00 00 00 00 00 00 00 00"),
        (TLVElement(.double(1.0 / 3.0)), "0b 55 55 55 55 55 55 d5 3f"),
        (TLVElement(.double(17.9)), "0b 66 66 66 66 66 e6 31 40"),
        (TLVElement(.structure([])), "15 18"),
        (TLVElement(.array([])), "16 18"),
        (TLVElement(.list([])), "17 18"),
        (TLVElement(.structure([TLVElement(.context(0), .signed(42)), TLVElement(.context(1), .signed(-17))])), "15 20 00 2a 20 01 ef 18"),
        (TLVElement(.array((0...4).map { TLVElement(.signed($0)) })), "16 00 00 00 01 00 02 00 03 00 04 18"),
        (
            TLVElement(
                .array([
                    TLVElement(.signed(42)), TLVElement(.signed(-170000)), TLVElement(.structure([])), TLVElement(.float(17.9)),
                    TLVElement(.utf8("Hello!")),
                ])),
            "16 00 2a 02 f0 67 fd ff 15 18 0a 33 33 8f 41 0c 06 48 65 6c 6c 6f 21 18"
        ),
        (TLVElement(.context(1), .unsigned(42)), "24 01 2a"),
        (TLVElement(.commonProfile(1), .unsigned(42)), "44 01 00 2a"),
        (TLVElement(.commonProfile(100_000), .unsigned(42)), "64 a0 86 01 00 2a"),
        (TLVElement(.fullyQualified(vendor: 0xFFF1, profile: 0xDEED, tag: 1), .unsigned(42)), "c4 f1 ff ed de 01 00 2a"),
        (TLVElement(.fullyQualified(vendor: 0xFFF1, profile: 0xDEED, tag: 0xAA55_FEED), .unsigned(42)), "e4 f1 ff ed de ed fe 55 aa 2a"),
        (
            TLVElement(.list([TLVElement(.context(1), .bool(true)), TLVElement(.signed(1)), TLVElement(.commonProfile(2), .null)])),
            "17 29 01 00 01 54 02 00 18"
        ),
    ]

    @Test("encodes each of the specification's examples to its bytes")
    func encodesExamples() {
        for (element, bytes) in Self.examples {
            #expect(TLVEncoder.encode(element) == hex(bytes), "\(element)")
        }
    }

    @Test("decodes each of the specification's examples to its value")
    func decodesExamples() throws {
        for (element, bytes) in Self.examples {
            #expect(try TLVDecoder.decode(hex(bytes)) == element, "\(bytes)")
        }
    }

    @Test("decodes integers of any width, as other encoders may not use the smallest")
    func decodesWideIntegers() throws {
        #expect(try TLVDecoder.decode(hex("07 2a 00 00 00 00 00 00 00")).value == .unsigned(42))
        #expect(try TLVDecoder.decode(hex("15 25 01 05 00 18")).value[context: 1]?.unsignedValue == 5)
        #expect(try TLVDecoder.decode(hex("11 02 00 aa bb")).value == .bytes([0xAA, 0xBB]))
    }

    @Test(
        "refuses malformed input with the reason and where",
        arguments: [
            ("", "1 bytes needed"),
            ("04", "1 bytes needed"),
            ("10 05 00 01", "a length of 5 with 2 bytes left"),
            ("13 ff ff ff ff ff ff ff ff", "a length of"),
            ("15 24 01 2a", "container without its end"),
            ("18", "end of container outside a container"),
            ("1f", "reserved"),
            ("0c 02 c3 28", "not valid UTF-8"),
            ("09 09", "1 bytes after the element"),
            ("24", "1 bytes needed"),
        ])
    func refusesMalformed(bytes: String, reason: String) {
        let error = #expect(throws: MatterError.self) { try TLVDecoder.decode(hex(bytes)) }
        #expect("\(error.map { "\($0)" } ?? "")".contains(reason), "\(String(describing: error))")
    }

    @Test("refuses containers nested deeper than the limit instead of recursing without end")
    func refusesDeepNesting() {
        let deep = [UInt8](repeating: 0x16, count: 10_000) + [UInt8](repeating: 0x18, count: 10_000)
        #expect(throws: MatterError.self) { try TLVDecoder.decode(deep) }
        let allowed = [UInt8](repeating: 0x16, count: 16) + [UInt8](repeating: 0x18, count: 16)
        #expect(throws: Never.self) { try TLVDecoder.decode(allowed) }
    }

    @Test("survives every truncation and every single-byte change of a message without crashing")
    func survivesMutations() {
        let message = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes(Array(repeating: 7, count: 32))), TLVElement(.context(2), .unsigned(1234)),
                TLVElement(.context(5), .structure([TLVElement(.context(1), .unsigned(500))])), TLVElement(.context(6), .utf8("x")),
            ]))
        for length in 0..<message.count { _ = try? TLVDecoder.decode(Array(message[..<length])) }
        for index in message.indices {
            for value in [0x00, 0x18, 0x1F, 0xFF] as [UInt8] {
                var mutated = message
                mutated[index] = value
                _ = try? TLVDecoder.decode(mutated)
            }
        }
    }
}
