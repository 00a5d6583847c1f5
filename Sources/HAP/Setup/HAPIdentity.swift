import Crypto

/// Who the accessory is: device id, Ed25519 long-term key, and the setup code and ID it pairs with.
public struct HAPIdentity: Sendable, Hashable, CustomStringConvertible {
    public var deviceID: HAPDeviceID
    /// The Ed25519 long-term secret key (32 raw bytes). Never logged.
    public var longTermSecretKey: [UInt8]
    public var setupCode: HAPSetupCode
    public var setupID: HAPSetupID

    public init(deviceID: HAPDeviceID, longTermSecretKey: [UInt8], setupCode: HAPSetupCode, setupID: HAPSetupID) throws(HAPError) {
        guard (try? Curve25519.Signing.PrivateKey(rawRepresentation: longTermSecretKey)) != nil else {
            throw .invalidKey("the accessory's long-term secret key must be 32 bytes, found \(longTermSecretKey.count)")
        }
        self.deviceID = deviceID
        self.longTermSecretKey = longTermSecretKey
        self.setupCode = setupCode
        self.setupID = setupID
    }

    /// A new identity: random device id, key, setup code (or the one given) and setup ID.
    public static func generate(setupCode: HAPSetupCode? = nil) -> HAPIdentity {
        HAPIdentity(
            unchecked: .random(), key: Array(Curve25519.Signing.PrivateKey().rawRepresentation),
            code: setupCode ?? .random(), setupID: .random())
    }

    private init(unchecked deviceID: HAPDeviceID, key: [UInt8], code: HAPSetupCode, setupID: HAPSetupID) {
        self.deviceID = deviceID
        self.longTermSecretKey = key
        self.setupCode = code
        self.setupID = setupID
    }

    var signingKey: Curve25519.Signing.PrivateKey {
        // Checked in init; generate() makes a valid one.
        (try? Curve25519.Signing.PrivateKey(rawRepresentation: longTermSecretKey)) ?? Curve25519.Signing.PrivateKey()
    }

    public var longTermPublicKey: [UInt8] {
        Array(signingKey.publicKey.rawRepresentation)
    }

    public var description: String {
        "HAPIdentity(deviceID: \(deviceID), setupID: \(setupID), key and setup code withheld)"
    }
}
