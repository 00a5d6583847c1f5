public import BigInt
import Crypto
import Foundation

/// The SRP-6a group HomeKit uses: RFC 5054's 3072-bit prime, generator 5, SHA-512.
public struct SRPGroup: Sendable {
    public let N: BigUInt
    public let g: BigUInt
    /// k = H(N | PAD(g)).
    public let k: BigUInt
    /// H(N) xor H(g), the first term of the client's proof.
    let hashNXorHashG: [UInt8]
    /// The length of N in bytes; A, B and S are padded to it.
    public let byteCount: Int
    /// Exponentiation modulo N.
    let montgomery: MontgomeryModulus

    public static let rfc5054Group3072 = SRPGroup()

    private init() {
        let hex =
            "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
            + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
            + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
            + "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
            + "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
            + "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
            + "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
            + "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF"
        // The literal is a constant; it always parses.
        let N = BigUInt(hex, radix: 16) ?? 0
        let g = BigUInt(5)
        let byteCount = 384
        self.N = N
        self.g = g
        self.byteCount = byteCount
        self.montgomery = MontgomeryModulus(N)
        let nBytes = SRPGroup.bytes(N)
        self.k = BigUInt(bigEndian: SRPGroup.sha512(nBytes + SRPGroup.bytes(g, padTo: byteCount)))
        let hashN = SRPGroup.sha512(nBytes)
        let hashG = SRPGroup.sha512(SRPGroup.bytes(g))
        self.hashNXorHashG = zip(hashN, hashG).map { $0 ^ $1 }
    }

    /// The big-endian bytes of a number, left-padded with zeros to `length` when given.
    static func bytes(_ number: BigUInt, padTo length: Int = 0) -> [UInt8] {
        let raw = [UInt8](number.serialize())
        return raw.count >= length ? raw : [UInt8](repeating: 0, count: length - raw.count) + raw
    }

    static func sha512(_ parts: [UInt8]...) -> [UInt8] {
        var hasher = SHA512()
        for part in parts { hasher.update(data: part) }
        return Array(hasher.finalize())
    }
}

extension BigUInt {
    init(bigEndian bytes: [UInt8]) {
        self.init(Data(bytes))
    }
}
