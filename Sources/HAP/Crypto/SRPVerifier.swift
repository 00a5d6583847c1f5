import BigInt
import Crypto

/// What the accessory keeps of a setup code for SRP: a salt and the verifier v = g^x.
///
/// Computing v costs a 3072-bit exponentiation, so one verifier serves every pair-setup with the
/// same code (a server that stores (salt, v) is how SRP is meant to run).
public struct SRPVerifier: Sendable {
    public let username: String
    public let salt: [UInt8]
    let verifier: BigUInt

    public init(username: String = "Pair-Setup", password: String, salt: [UInt8], group: SRPGroup = .rfc5054Group3072) {
        self.username = username
        self.salt = salt
        let inner = SRPGroup.sha512(Array("\(username):\(password)".utf8))
        let x = BigUInt(bigEndian: SRPGroup.sha512(salt, inner))
        self.verifier = group.montgomery.power(group.g, x)
    }

    /// A verifier with a fresh random 16-byte salt.
    public init(username: String = "Pair-Setup", password: String) {
        var generator = SystemRandomNumberGenerator()
        self.init(username: username, password: password, salt: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// v as bytes padded to the group's length, for the known-answer tests.
    public var verifierBytes: [UInt8] {
        SRPGroup.bytes(verifier, padTo: SRPGroup.rfc5054Group3072.byteCount)
    }
}
