import Crypto

/// The framing of an encrypted HAP session: `<2-byte LE length><≤1024 bytes ciphertext><16-byte tag>`,
/// the length as additional data, a 64-bit counter per direction as the nonce.
struct HAPSessionCipher: Sendable {
    static let maxFrameLength = 1024
    static let tagLength = 16

    enum Failure: Error, Equatable {
        case frameTooLong(Int)
        case authenticationFailed(frame: UInt64)
    }

    private let keys: HAPSessionKeys
    private(set) var outboundCounter: UInt64 = 0
    private(set) var inboundCounter: UInt64 = 0

    init(keys: HAPSessionKeys) {
        self.keys = keys
    }

    /// Cuts plaintext into sealed frames.
    mutating func seal(_ plaintext: some Collection<UInt8>) -> [UInt8] {
        let plaintext = Array(plaintext)
        var output: [UInt8] = []
        output.reserveCapacity(plaintext.count + (plaintext.count / HAPSessionCipher.maxFrameLength + 1) * 18)
        var offset = 0
        repeat {
            let length = min(HAPSessionCipher.maxFrameLength, plaintext.count - offset)
            let aad: [UInt8] = [UInt8(length & 0xFF), UInt8(length >> 8)]
            // ChaChaPoly only fails on a malformed nonce, which counter nonces never are.
            let sealed =
                (try? HAPKeys.seal(
                    Array(plaintext[offset..<offset + length]), key: keys.outbound,
                    nonce: HAPKeys.nonce(counter: outboundCounter), aad: aad)) ?? []
            outboundCounter += 1
            output += aad + sealed
            offset += length
        } while offset < plaintext.count
        return output
    }

    /// Opens every complete frame at the start of `pending` and removes it; a partial frame stays.
    mutating func open(_ pending: inout [UInt8]) throws(Failure) -> [UInt8] {
        var plaintext: [UInt8] = []
        var offset = 0
        while pending.count - offset >= 2 {
            let length = Int(pending[offset]) | Int(pending[offset + 1]) << 8
            guard length <= HAPSessionCipher.maxFrameLength else { throw .frameTooLong(length) }
            let frameEnd = offset + 2 + length + HAPSessionCipher.tagLength
            guard pending.count >= frameEnd else { break }
            guard
                let opened = HAPKeys.open(
                    pending[offset + 2..<frameEnd], key: keys.inbound, nonce: HAPKeys.nonce(counter: inboundCounter),
                    aad: Array(pending[offset..<offset + 2]))
            else { throw .authenticationFailed(frame: inboundCounter) }
            inboundCounter += 1
            plaintext += opened
            offset = frameEnd
        }
        pending.removeFirst(offset)
        return plaintext
    }
}
