import BigInt
import Crypto

/// The accessory's side of one SRP-6a exchange (HAP pair-setup M2 to M4).
public struct SRPServer: Sendable {
    public let group: SRPGroup
    public let verifier: SRPVerifier
    private let b: BigUInt
    /// B = k·v + g^b mod N, padded to the group's length.
    public let publicKey: [UInt8]
    private let B: BigUInt

    /// A new exchange with a random private value b of 256 bits (RFC 5054 asks for at least that).
    public init(verifier: SRPVerifier, group: SRPGroup = .rfc5054Group3072) {
        var generator = SystemRandomNumberGenerator()
        self.init(verifier: verifier, privateKey: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }, group: group)
    }

    /// An exchange with a given b, for known-answer tests.
    public init(verifier: SRPVerifier, privateKey: [UInt8], group: SRPGroup = .rfc5054Group3072) {
        self.group = group
        self.verifier = verifier
        self.b = BigUInt(bigEndian: privateKey)
        let gb = group.montgomery.power(group.g, b)
        let B = (group.k * verifier.verifier + gb) % group.N
        self.B = B
        self.publicKey = SRPGroup.bytes(B, padTo: group.byteCount)
    }

    /// The result of a client proof that checked out.
    public struct Session: Sendable {
        /// K = H(S), the secret both sides now share.
        public let sessionKey: [UInt8]
        /// M2 = H(A | M1 | K), the accessory's proof.
        public let serverProof: [UInt8]
    }

    /// Checks the client's public key A and proof M1; nil when the setup code was wrong or A is
    /// not acceptable.
    public func verify(clientPublicKey: [UInt8], clientProof: [UInt8]) -> Session? {
        guard !clientPublicKey.isEmpty, clientPublicKey.count <= group.byteCount, clientProof.count == 64 else { return nil }
        let A = BigUInt(bigEndian: clientPublicKey)
        guard A % group.N != 0 else { return nil }
        let paddedA = SRPGroup.bytes(A, padTo: group.byteCount)
        let u = BigUInt(bigEndian: SRPGroup.sha512(paddedA, publicKey))
        guard u != 0 else { return nil }
        let S = group.montgomery.power(A * group.montgomery.power(verifier.verifier, u), b)
        let K = SRPGroup.sha512(SRPGroup.bytes(S, padTo: group.byteCount))
        let expected = SRPGroup.sha512(
            group.hashNXorHashG, SRPGroup.sha512(Array(verifier.username.utf8)), verifier.salt, paddedA, publicKey, K)
        guard constantTimeEqual(expected, clientProof) else { return nil }
        return Session(sessionKey: K, serverProof: SRPGroup.sha512(paddedA, clientProof, K))
    }
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}
