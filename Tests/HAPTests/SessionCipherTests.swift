import Crypto
import Foundation
import Testing

@testable import HAP

@Suite("Session keys and framing")
struct SessionCipherTests {
    @Test("HKDF-SHA512 keys match pyca/cryptography for every salt and info HAP uses")
    func keys() throws {
        let fixture = try Fixture.json("session-vectors")
        let hex = { (key: String) in try #require(fixture[key] as? String) }
        let shared = [UInt8](hex: try hex("sharedSecret"))
        let srpKey = [UInt8](hex: try hex("srpSessionKey"))
        let bytes = { (key: SymmetricKey) in key.withUnsafeBytes { Array($0) }.hex }
        #expect(bytes(HAPKeys.derive(shared, salt: "Control-Salt", info: "Control-Read-Encryption-Key")) == (try hex("readKey")))
        #expect(bytes(HAPKeys.derive(shared, salt: "Control-Salt", info: "Control-Write-Encryption-Key")) == (try hex("writeKey")))
        #expect(
            bytes(HAPKeys.derive(srpKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info"))
                == (try hex("pairSetupEncryptKey")))
        #expect(
            bytes(HAPKeys.derive(srpKey, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info"))
                == (try hex("pairSetupControllerSign")))
        #expect(
            bytes(HAPKeys.derive(srpKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info"))
                == (try hex("pairSetupAccessorySign")))
        #expect(
            bytes(HAPKeys.derive(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info"))
                == (try hex("pairVerifyEncryptKey")))
    }

    @Test("1500 bytes go out as a 1024-byte and a 476-byte frame, byte for byte as the oracle seals them")
    func sealing() throws {
        let fixture = try Fixture.json("session-vectors")
        let keys = HAPSessionKeys(sharedSecret: [UInt8](hex: try #require(fixture["sharedSecret"] as? String)))
        var cipher = HAPSessionCipher(keys: keys)
        let sealed = cipher.seal([UInt8](hex: try #require(fixture["plaintext"] as? String)))
        #expect(sealed.hex == fixture["accessoryFrames"] as? String)
        #expect(sealed.count == 1500 + 2 * 18)
        #expect(Array(sealed.prefix(2)) == [0x00, 0x04])
        #expect(cipher.outboundCounter == 2)
    }

    @Test("a controller's frames open, also when they arrive a few bytes at a time")
    func opening() throws {
        let fixture = try Fixture.json("session-vectors")
        let keys = HAPSessionKeys(sharedSecret: [UInt8](hex: try #require(fixture["sharedSecret"] as? String)))
        let frames = [UInt8](hex: try #require(fixture["controllerFrames"] as? String))
        var cipher = HAPSessionCipher(keys: keys)
        var pending: [UInt8] = []
        var plaintext: [UInt8] = []
        for chunk in stride(from: 0, to: frames.count, by: 7) {
            pending += frames[chunk..<min(chunk + 7, frames.count)]
            plaintext += try cipher.open(&pending)
        }
        #expect(plaintext.hex == fixture["request"] as? String)
        #expect(pending.isEmpty)
        #expect(cipher.inboundCounter == 1)
    }

    @Test("a changed byte or a replayed frame fails authentication")
    func tampering() throws {
        let fixture = try Fixture.json("session-vectors")
        let keys = HAPSessionKeys(sharedSecret: [UInt8](hex: try #require(fixture["sharedSecret"] as? String)))
        let frames = [UInt8](hex: try #require(fixture["controllerFrames"] as? String))
        var tampered = frames
        tampered[5] ^= 1
        var cipher = HAPSessionCipher(keys: keys)
        #expect(throws: HAPSessionCipher.Failure.authenticationFailed(frame: 0)) { try cipher.open(&tampered) }
        var replay = frames + frames
        var fresh = HAPSessionCipher(keys: keys)
        #expect(throws: HAPSessionCipher.Failure.authenticationFailed(frame: 1)) { try fresh.open(&replay) }
        var tooLong: [UInt8] = [0x01, 0x04] + [UInt8](repeating: 0, count: 1041)
        #expect(throws: HAPSessionCipher.Failure.frameTooLong(1025)) { try fresh.open(&tooLong) }
    }

    @Test("ChaCha20-Poly1305 matches RFC 8439 section 2.8.2's tag")
    func rfc8439() throws {
        let key = SymmetricKey(data: (0x80...0x9F).map { UInt8($0) })
        let nonce: [UInt8] = [0x07, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47]
        let aad: [UInt8] = [0x50, 0x51, 0x52, 0x53, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7]
        let text = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        let sealed = try HAPKeys.seal(text, key: key, nonce: nonce, aad: aad)
        #expect(Array(sealed.suffix(16)).hex == "1ae10b594f09e26a7e902ecbd0600691")
        #expect(Array(sealed.prefix(4)).hex == "d31a8d34")
        #expect(HAPKeys.open(sealed, key: key, nonce: nonce, aad: aad) == text)
    }
}
