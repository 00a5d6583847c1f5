import Crypto
import Foundation

/// HKDF-SHA512 and ChaCha20-Poly1305 as the pairing messages and the session use them.
enum HAPKeys {
    /// HKDF-SHA512 with the protocol's ASCII salt and info strings; 32 bytes.
    static func derive(_ inputKey: some ContiguousBytes, salt: String, info: String) -> SymmetricKey {
        HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: inputKey), salt: Array(salt.utf8), info: Array(info.utf8),
            outputByteCount: 32)
    }

    /// A 12-byte nonce: four zero bytes, then the 8-byte label ("PS-Msg05") or counter.
    static func nonce(label: String) -> [UInt8] {
        let bytes = Array(label.utf8)
        return [UInt8](repeating: 0, count: 12 - bytes.count) + bytes
    }

    static func nonce(counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + withUnsafeBytes(of: counter.littleEndian) { Array($0) }
    }

    /// Ciphertext followed by the 16-byte tag.
    static func seal(_ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], aad: [UInt8] = []) throws -> [UInt8] {
        let box = try ChaChaPoly.seal(plaintext, using: key, nonce: ChaChaPoly.Nonce(data: nonce), authenticating: aad)
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// Opens ciphertext followed by its tag; nil when the tag does not match.
    static func open(_ sealed: some Collection<UInt8>, key: SymmetricKey, nonce: [UInt8], aad: [UInt8] = []) -> [UInt8]? {
        let sealed = Array(sealed)
        guard sealed.count >= 16,
            let nonce = try? ChaChaPoly.Nonce(data: nonce),
            let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        else { return nil }
        return (try? ChaChaPoly.open(box, using: key, authenticating: aad)).map { Array($0) }
    }
}
