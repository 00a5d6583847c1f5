import Crypto

/// A PKCS #10 certification request (RFC 2986) for a new operational key, as CSRRequest answers
/// (Matter specification 11.18.6.5): subject O=CSR, no attributes, signed with the key itself.
enum CertificateSigningRequest {
    static func make(for key: P256.Signing.PrivateKey) throws -> [UInt8] {
        let info: DER = .sequence([
            .integer([0]),
            .sequence([.set([.sequence([.objectIdentifier([2, 5, 4, 10]), .utf8String("CSR")])])]),
            DER.p256PublicKey(Array(key.publicKey.x963Representation)),
            .implicitConstructed(0, []),
        ])
        let encoded = info.encoded
        let signature = try key.signature(for: encoded).derRepresentation
        return DER.sequence([.raw(encoded), DER.ecdsaWithSHA256, .bitString(Array(signature))]).encoded
    }
}
