import Crypto
import Foundation

/// The `X-HM://` setup payload that the QR code carries, and the `sh` hash that lets a
/// controller match a scanned code with an advertisement.
public enum HAPSetupURI {
    /// `X-HM://` + 9 base-36 digits of (category << 31 | flags << 27 | code) + setup ID; flags 2 = IP.
    public static func make(code: HAPSetupCode, setupID: HAPSetupID, category: HAPCategory) -> String {
        make(codeNumber: code.number, setupID: setupID, category: category)
    }

    static func make(codeNumber: UInt64, setupID: HAPSetupID, category: HAPCategory) -> String {
        let ipFlag: UInt64 = 2
        let payload = (category.rawValue << 31) | (ipFlag << 27) | (codeNumber & 0x7FF_FFFF)
        let base36 = String(payload, radix: 36, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 9 - base36.count)) + base36
        return "X-HM://" + padded + setupID.description
    }

    /// base64 of the first four bytes of SHA-512(setup ID + device ID).
    public static func setupHash(setupID: HAPSetupID, deviceID: HAPDeviceID) -> String {
        let digest = SHA512.hash(data: Array((setupID.description + deviceID.description).utf8))
        return Data(Array(digest).prefix(4)).base64EncodedString()
    }
}
