import Crypto
import CryptoExtras

@testable import Matter

/// The commissioner's side of SPAKE2+ (Matter specification 3.10), written for the tests only: it
/// drives the device's `MessageDispatcher` through PASE as the SDK's controller does.
struct PASEProver {
    let w0: [UInt8]
    let w1: [UInt8]
    let x: [UInt8]
    let X: [UInt8]

    init(passcode: UInt32, salt: [UInt8], iterations: Int) throws {
        let ws = try KDF.Insecure.PBKDF2.deriveKey(
            from: littleEndian(passcode), salt: salt, using: .sha256, outputByteCount: 80, unsafeUncheckedRounds: iterations
        ).withUnsafeBytes { Array($0) }
        w0 = try P256Point.reduce(Array(ws[0..<40]))
        w1 = try P256Point.reduce(Array(ws[40..<80]))
        x = try P256Point.randomScalar()
        let M = try P256Point.combination(generatorScalar: nil, point: SPAKE2PlusVerifier.M, scalar: [1])
        X = try P256Point.combination(generatorScalar: x, point: M, scalar: w0)
    }

    /// cA and Ke from the device's Pake2, or nil when the device's confirmation cB does not check out.
    func finish(context: [UInt8], Y: [UInt8], cB: [UInt8]) throws -> (cA: [UInt8], sharedSecret: [UInt8])? {
        let M = try P256Point.combination(generatorScalar: nil, point: SPAKE2PlusVerifier.M, scalar: [1])
        let N = try P256Point.combination(generatorScalar: nil, point: SPAKE2PlusVerifier.N, scalar: [1])
        let unblinded = try P256Point.add(Y, P256Point.negate(P256Point.combination(generatorScalar: nil, point: N, scalar: w0)))
        let Z = try P256Point.combination(generatorScalar: nil, point: unblinded, scalar: x)
        let V = try P256Point.combination(generatorScalar: nil, point: unblinded, scalar: w1)
        var transcript: [UInt8] = []
        for part in [context, [], [], M, N, X, Y, Z, V, w0] { transcript += littleEndian(UInt64(part.count)) + part }
        let keys = Array(SHA256.hash(data: transcript))
        let confirmation = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: keys[0..<16]), salt: [UInt8](), info: Array("ConfirmationKeys".utf8), outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
        guard Array(HMAC<SHA256>.authenticationCode(for: X, using: SymmetricKey(data: confirmation[16..<32]))) == cB else { return nil }
        return (Array(HMAC<SHA256>.authenticationCode(for: Y, using: SymmetricKey(data: confirmation[0..<16]))), Array(keys[16..<32]))
    }
}
