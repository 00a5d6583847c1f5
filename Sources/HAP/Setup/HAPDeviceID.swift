/// The accessory's pairing identifier, `XX:XX:XX:XX:XX:XX`; also the TXT record's `id`.
public struct HAPDeviceID: Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ text: String) throws(HAPError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else {
            throw .invalidDeviceID("'\(text)' is not six hexadecimal bytes joined by colons")
        }
        description = text.uppercased()
    }

    public static func random() -> HAPDeviceID {
        var generator = SystemRandomNumberGenerator()
        let text = (0..<6).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }.joined(separator: ":")
        return (try? HAPDeviceID(text)) ?? HAPDeviceID(unchecked: "00:00:00:00:00:01")
    }

    private init(unchecked: String) {
        description = unchecked
    }
}
