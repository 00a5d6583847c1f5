import BigInt
import Foundation
import Testing

@testable import HAP

@Suite("SRP-6a, 3072-bit group, SHA-512")
struct SRPTests {
    @Test("the group is RFC 5054's 3072-bit prime with g = 5, and k = H(N | PAD(g)) equals aiohomekit's")
    func group() throws {
        let group = SRPGroup.rfc5054Group3072
        #expect(SRPGroup.bytes(group.N).count == 384)
        #expect(SRPGroup.bytes(group.g) == [5])
        let fixture = try Fixture.json("srp-vectors")
        let k = try #require(fixture["k"] as? String)
        #expect(SRPGroup.bytes(group.k, padTo: 64).hex == k)
        // RFC 5054 appendix A: the 3072-bit prime starts FFFFFFFF FFFFFFFF C90FDAA2 and ends FFFFFFFF FFFFFFFF.
        let bytes = SRPGroup.bytes(group.N)
        #expect(Array(bytes.prefix(12)).hex == "ffffffffffffffffc90fdaa2")
        #expect(Array(bytes.suffix(8)).hex == "ffffffffffffffff")
    }

    @Test("verifier, B, session key and both proofs match aiohomekit's client-side SRP")
    func againstAiohomekit() throws {
        let fixture = try Fixture.json("srp-vectors")
        let vectors = try #require(fixture["vectors"] as? [[String: String]])
        #expect(vectors.count == 3)
        for vector in vectors {
            let field = { (key: String) throws -> [UInt8] in [UInt8](hex: try #require(vector[key])) }
            let verifier = SRPVerifier(password: try #require(vector["setupCode"]), salt: try field("salt"))
            #expect(verifier.verifierBytes.hex == vector["verifier"])
            let server = SRPServer(verifier: verifier, privateKey: try field("b"))
            #expect(server.publicKey.hex == vector["B"])
            let proof = server.verify(clientPublicKey: try field("A"), clientProof: try field("clientProof"))
            let session = try #require(proof)
            #expect(session.sessionKey.hex == vector["sessionKey"])
            #expect(session.serverProof.hex == vector["serverProof"])
        }
    }

    @Test("a proof made with another setup code is refused")
    func wrongCode() throws {
        let fixture = try Fixture.json("srp-vectors")
        let vector = try #require((fixture["vectors"] as? [[String: String]])?.first)
        let field = { (key: String) throws -> [UInt8] in [UInt8](hex: try #require(vector[key])) }
        let verifier = SRPVerifier(password: "031-45-155", salt: try field("salt"))
        let server = SRPServer(verifier: verifier, privateKey: try field("b"))
        #expect(server.verify(clientPublicKey: try field("A"), clientProof: try field("clientProof")) == nil)
    }

    @Test("A = 0, A = N and short proofs are refused")
    func degenerateKeys() {
        let server = SRPServer(verifier: SRPVerifier(password: "031-45-154", salt: [UInt8](repeating: 1, count: 16)))
        let proof = [UInt8](repeating: 0, count: 64)
        #expect(server.verify(clientPublicKey: [0], clientProof: proof) == nil)
        #expect(server.verify(clientPublicKey: SRPGroup.bytes(SRPGroup.rfc5054Group3072.N), clientProof: proof) == nil)
        #expect(server.verify(clientPublicKey: [2], clientProof: [1, 2]) == nil)
        #expect(server.verify(clientPublicKey: [], clientProof: proof) == nil)
    }
}

@Suite("Montgomery exponentiation")
struct MontgomeryTests {
    @Test("agrees with BigUInt.power(_:modulus:) on the SRP prime and on a small odd modulus")
    func againstBigInt() {
        let group = SRPGroup.rfc5054Group3072
        var generator = SystemRandomNumberGenerator()
        let random = { (bytes: Int) in (0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        for (baseBytes, exponentBytes) in [(384, 8), (400, 32), (1, 64), (384, 1), (17, 0)] {
            let base = BigUInt(bigEndian: random(baseBytes))
            let exponent = BigUInt(bigEndian: random(exponentBytes))
            #expect(group.montgomery.power(base, exponent) == base.power(exponent, modulus: group.N))
        }
        let small = BigUInt(bigEndian: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC5, 0x01, 0x03])
        let montgomery = MontgomeryModulus(small)
        for _ in 0..<20 {
            let base = BigUInt(bigEndian: random(12))
            let exponent = BigUInt(bigEndian: random(4))
            #expect(montgomery.power(base, exponent) == base.power(exponent, modulus: small))
        }
    }
}
