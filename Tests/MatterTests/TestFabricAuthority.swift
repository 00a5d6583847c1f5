import Crypto

@testable import Matter

/// A commissioner's certificate authority for the tests: a root and NOCs in Matter's TLV form,
/// signed over their X.509 form as the SDK's controller does.
struct TestFabricAuthority {
    let rootKey = P256.Signing.PrivateKey()
    let fabricID: UInt64 = 0x0000_0000_0000_0001
    var root: [UInt8] = []

    init() throws {
        root = try certificate(
            subject: [TLVElement(.context(20), .unsigned(0xCACA_CACA_0000_0001))], publicKey: rootKey.publicKey, isCA: true)
    }

    func noc(nodeID: UInt64, for key: P256.Signing.PublicKey) throws -> [UInt8] {
        try certificate(
            subject: [TLVElement(.context(17), .unsigned(nodeID)), TLVElement(.context(21), .unsigned(fabricID))], publicKey: key,
            isCA: false)
    }

    private func certificate(subject: [TLVElement], publicKey: P256.Signing.PublicKey, isCA: Bool) throws -> [UInt8] {
        let point = Array(publicKey.x963Representation)
        let keyID = Array(Insecure.SHA1.hash(data: point))
        let rootKeyID = Array(Insecure.SHA1.hash(data: Array(rootKey.publicKey.x963Representation)))
        func encode(signature: [UInt8]) -> [UInt8] {
            TLVEncoder.encode(
                .structure([
                    TLVElement(.context(1), .bytes([0x01, 0x23])),
                    TLVElement(.context(2), .unsigned(1)),
                    TLVElement(.context(3), .list([TLVElement(.context(20), .unsigned(0xCACA_CACA_0000_0001))])),
                    TLVElement(.context(4), .unsigned(0x2800_0000)),
                    TLVElement(.context(5), .unsigned(0)),
                    TLVElement(.context(6), .list(subject)),
                    TLVElement(.context(7), .unsigned(1)),
                    TLVElement(.context(8), .unsigned(1)),
                    TLVElement(.context(9), .bytes(point)),
                    TLVElement(
                        .context(10),
                        .list(
                            [
                                TLVElement(.context(1), .structure([TLVElement(.context(1), .bool(isCA))])),
                                TLVElement(.context(2), .unsigned(isCA ? 0x60 : 0x01)),
                            ] + (isCA ? [] : [TLVElement(.context(3), .array([TLVElement(.unsigned(2)), TLVElement(.unsigned(1))]))]) + [
                                TLVElement(.context(4), .bytes(keyID)),
                                TLVElement(.context(5), .bytes(rootKeyID)),
                            ])),
                    TLVElement(.context(11), .bytes(signature)),
                ]))
        }
        let unsigned = try MatterCertificate(tlv: encode(signature: [UInt8](repeating: 0, count: 64)))
        let signature = try rootKey.signature(for: unsigned.tbsCertificate()).rawRepresentation
        return encode(signature: Array(signature))
    }
}
