/// What a commissioner needs to find and commission the device (Matter specification 5.1): the
/// passcode, the discriminator, the vendor and product ids; printed as the 11-digit manual pairing
/// code and the `MT:` QR code payload.
public struct SetupPayload: Sendable, Equatable {
    public var passcode: UInt32
    public var discriminator: UInt16
    public var vendorID: UInt16
    public var productID: UInt16
    /// Discovery capabilities: bit 1 BLE, bit 2 on the IP network.
    public var discoveryCapabilities: UInt8 = 0x04

    public static let passcodeRange: ClosedRange<UInt32> = 1...99_999_998
    /// Passcodes the specification forbids (5.1.7.1): trivially guessed.
    public static let forbiddenPasscodes: Set<UInt32> = Set((0...9).map { UInt32($0) * 11_111_111 } + [12_345_678, 87_654_321])

    public init(passcode: UInt32, discriminator: UInt16, vendorID: UInt16, productID: UInt16) throws {
        try Self.validate(passcode: passcode)
        guard discriminator <= 0xFFF else { throw MatterError.invalidSetup("discriminator \(discriminator) is more than 12 bits (0…4095)") }
        self.passcode = passcode
        self.discriminator = discriminator
        self.vendorID = vendorID
        self.productID = productID
    }

    public static func validate(passcode: UInt32) throws {
        guard passcodeRange.contains(passcode), !forbiddenPasscodes.contains(passcode) else {
            throw MatterError.invalidSetup(
                "the passcode is not allowed (a setup passcode is secret, so not repeated here): 00000001…99999998, not 12345678, 87654321 or eight equal digits")
        }
    }

    /// A random allowed passcode.
    public static func randomPasscode() -> UInt32 {
        var passcode: UInt32
        repeat { passcode = UInt32.random(in: passcodeRange) } while forbiddenPasscodes.contains(passcode)
        return passcode
    }

    /// The 11-digit manual pairing code (5.1.4.1): the short (4-bit) discriminator, the passcode, a Verhoeff check digit.
    public var manualPairingCode: String {
        let short = UInt32(discriminator >> 8)
        let first = short >> 2  // no vendor and product ids in the short form
        let second = (short & 0x3) << 14 | (passcode & 0x3FFF)
        let third = passcode >> 14
        let digits = "\(first)" + pad(second, 5) + pad(third, 4)
        return digits + String(Verhoeff.checkDigit(for: digits))
    }

    /// The QR code payload (5.1.3): "MT:" and the 88-bit packed payload in base-38.
    public var qrCodePayload: String {
        var bits = BitPacker()
        bits.append(0, width: 3)  // version
        bits.append(UInt64(vendorID), width: 16)
        bits.append(UInt64(productID), width: 16)
        bits.append(0, width: 2)  // standard commissioning flow
        bits.append(UInt64(discoveryCapabilities), width: 8)
        bits.append(UInt64(discriminator), width: 12)
        bits.append(UInt64(passcode), width: 27)
        bits.append(0, width: 4)  // padding
        return "MT:" + Base38.encode(bits.bytes)
    }

    private func pad(_ value: UInt32, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// Bits packed least significant first into bytes, as the QR payload wants them.
struct BitPacker {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    mutating func append(_ value: UInt64, width: Int) {
        for bit in 0..<width {
            if used % 8 == 0 { bytes.append(0) }
            if value >> bit & 1 == 1 { bytes[bytes.count - 1] |= 1 << (used % 8) }
            used += 1
        }
    }
}

/// Matter's base-38 (5.1.3.1): 3 bytes become 5 characters, 2 bytes 4, 1 byte 2, least significant first.
enum Base38 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-.")

    static func encode(_ bytes: [UInt8]) -> String {
        var out = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            var value = chunk.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            for _ in 0..<[0, 2, 4, 5][chunk.count] {
                out.append(alphabet[Int(value % 38)])
                value /= 38
            }
        }
        return out
    }
}

/// The Verhoeff check digit, which catches every single-digit error and adjacent transposition.
enum Verhoeff {
    private static let multiplication: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ]
    private static let permutation: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ]
    private static let inverse = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]

    static func checkDigit(for digits: String) -> Int {
        var c = 0
        for (i, character) in digits.reversed().enumerated() {
            c = multiplication[c][permutation[(i + 1) % 8][character.wholeNumberValue ?? 0]]
        }
        return inverse[c]
    }

    static func isValid(_ digits: String) -> Bool {
        var c = 0
        for (i, character) in digits.reversed().enumerated() {
            c = multiplication[c][permutation[i % 8][character.wholeNumberValue ?? 0]]
        }
        return c == 0
    }
}
