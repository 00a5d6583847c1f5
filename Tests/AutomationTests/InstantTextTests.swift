import Automation
import Foundation
import Testing

@Suite("Instants as events, listings, exports and log lines write them")
struct InstantTextTests {
    @Test("UTC with milliseconds, zero-padded, the milliseconds cut rather than rounded")
    func examples() {
        #expect(instantText(Date(timeIntervalSince1970: 1_795_469_400)) == "2026-11-23T21:30:00.000Z")
        #expect(instantText(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(instantText(Date(timeIntervalSince1970: 1_709_251_199.9996)) == "2024-02-29T23:59:59.999Z")
        #expect(instantText(Date(timeIntervalSince1970: 1_709_251_200.0504)) == "2024-03-01T00:00:00.050Z")
        #expect(instantText(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
        #expect(instantText(Date(timeIntervalSince1970: -31_536_000_000)) == "0970-08-31T00:00:00.000Z")
        #expect(instantText(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000Z")
    }

    @Test("reads back with Foundation's ISO 8601 parser as the same millisecond, over 130 years of instants")
    func roundTrip() throws {
        let parser = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var generator = SplitMix(seed: 17)
        for _ in 0..<20_000 {
            let date = Date(timeIntervalSince1970: Double(generator.next() % 4_102_444_800_000) / 1000 + 0.0004)
            let text = instantText(date)
            #expect(text.utf8.count == 24 && text.hasSuffix("Z"), "\(text)")
            let parsed = try parser.parse(text)
            #expect(abs(parsed.timeIntervalSince(date) + 0.0004) < 0.0002, "\(date.timeIntervalSince1970) was written \(text)")
        }
    }
}

/// A small deterministic generator: the same instants on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
