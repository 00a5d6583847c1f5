import Crypto
import CryptoExtras

/// What the device keeps of its passcode for PASE (Matter specification 3.10): w0 and L = w1·G,
/// from PBKDF2-SHA256 over the passcode with the device's salt and iteration count.
public struct PASEVerifier: Sendable, Equatable {
    public let w0: [UInt8]
    public let L: [UInt8]
    public let salt: [UInt8]
    public let iterations: Int

    public static let iterationRange = 1000...100_000
    public static let saltLengths = 16...32

    public init(passcode: UInt32, salt: [UInt8], iterations: Int) throws {
        guard Self.iterationRange.contains(iterations), Self.saltLengths.contains(salt.count) else {
            throw MatterError.invalidSetup("PBKDF2 needs \(Self.iterationRange) iterations and a salt of \(Self.saltLengths) bytes")
        }
        // The passcode as a 4-byte little-endian integer; w0s ‖ w1s, 40 bytes each (32 + 8 to make the reduction uniform).
        let ws = try KDF.Insecure.PBKDF2.deriveKey(
            from: littleEndian(passcode), salt: salt, using: .sha256, outputByteCount: 80, unsafeUncheckedRounds: iterations
        ).withUnsafeBytes { Array($0) }
        w0 = try P256Point.reduce(Array(ws[0..<40]))
        L = try P256Point.combination(generatorScalar: try P256Point.reduce(Array(ws[40..<80])))
        self.salt = salt
        self.iterations = iterations
    }

    /// The verifier from stored w0 and L (the spec's serialised form: w0 ‖ L, 97 bytes).
    public init(w0: [UInt8], L: [UInt8], salt: [UInt8], iterations: Int) {
        self.w0 = w0
        self.L = L
        self.salt = salt
        self.iterations = iterations
    }
}

/// The verifier's (the device's) side of SPAKE2+ on P-256 with SHA-256, HKDF and HMAC, as Matter
/// uses it (Matter specification 3.10, draft-bar-cfrg-spake2plus-01): empty identities, and the
/// confirmation keys derived from Ka with the info "ConfirmationKeys".
public struct SPAKE2PlusVerifier: Sendable {
    /// The generators M and N of the draft, for P-256.
    static let M = hex("02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f")
    static let N = hex("03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49")

    /// Y (pB), the verifier's share sent in Pake2.
    public let Y: [UInt8]
    /// cB, the verifier's confirmation sent in Pake2.
    public let confirmation: [UInt8]
    /// The shared secret Ke, for the session keys once the prover's confirmation checks out.
    public let sharedSecret: [UInt8]
    private let expectedProverConfirmation: [UInt8]

    /// The verifier's round: from the prover's share X and the context hash, with a random `y`
    /// (passed in by tests to replay a test vector).
    /// The identities are empty in Matter; the draft's test vectors name them.
    public init(
        context: [UInt8], X: [UInt8], verifier: PASEVerifier, y: [UInt8]? = nil, proverIdentity: [UInt8] = [],
        verifierIdentity: [UInt8] = []
    ) throws {
        guard X.count == P256Point.pointLength, X.first == 0x04 else {
            throw MatterError.pase("pA must be an uncompressed P-256 point of 65 bytes, got \(X.count) bytes")
        }
        let y = try y ?? P256Point.randomScalar()
        let M = try P256Point.combination(generatorScalar: nil, point: Self.M, scalar: [1])
        let N = try P256Point.combination(generatorScalar: nil, point: Self.N, scalar: [1])
        let Y = try P256Point.combination(generatorScalar: y, point: N, scalar: verifier.w0)
        // Z = y·(X − w0·M), V = y·L
        let unblinded = try P256Point.add(X, P256Point.negate(P256Point.combination(generatorScalar: nil, point: M, scalar: verifier.w0)))
        let Z = try P256Point.combination(generatorScalar: nil, point: unblinded, scalar: y)
        let V = try P256Point.combination(generatorScalar: nil, point: verifier.L, scalar: y)

        var transcript: [UInt8] = []
        for part in [context, proverIdentity, verifierIdentity, M, N, X, Y, Z, V, verifier.w0] {
            transcript += littleEndian(UInt64(part.count)) + part
        }
        let keys = Array(SHA256.hash(data: transcript))
        let Ka = Array(keys[0..<16])
        let confirmationKeys = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Ka), salt: [UInt8](), info: Array("ConfirmationKeys".utf8), outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
        let KcA = SymmetricKey(data: confirmationKeys[0..<16])
        let KcB = SymmetricKey(data: confirmationKeys[16..<32])
        self.Y = Y
        self.confirmation = Array(HMAC<SHA256>.authenticationCode(for: X, using: KcB))
        self.expectedProverConfirmation = Array(HMAC<SHA256>.authenticationCode(for: Y, using: KcA))
        self.sharedSecret = Array(keys[16..<32])
    }

    /// Whether the prover's confirmation cA (in Pake3) proves it knew the passcode.
    public func verifies(proverConfirmation cA: [UInt8]) -> Bool {
        guard cA.count == expectedProverConfirmation.count else { return false }
        return zip(cA, expectedProverConfirmation).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0  // constant time
    }
}

/// Bytes from hexadecimal digits, for constants and tests (two digits a byte; anything else is dropped).
public func hex(_ string: String) -> [UInt8] {
    let digits = Array(string.utf8).compactMap { UInt8(String(UnicodeScalar($0)), radix: 16) }
    return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}
