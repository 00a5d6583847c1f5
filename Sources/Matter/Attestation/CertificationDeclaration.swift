import Crypto

/// A Certification Declaration (Matter specification 6.3): the TLV certification elements in a CMS
/// SignedData envelope, signed by a CD signing key named by its subject key identifier.
enum CertificationDeclaration {
    /// A development-and-test CD (certification type 0) signed with the SDK's published test key.
    static func test(vendorID: UInt16, productIDs: [UInt16], deviceType: UInt32) throws -> [UInt8] {
        let key = try P256.Signing.PrivateKey(pemRepresentation: TestCredentials.cdSigningPrivateKey)
        let content = content(vendorID: vendorID, productIDs: productIDs, deviceType: deviceType)
        return try signed(content: content, key: key, keyIdentifier: TestCredentials.cdSigningKeyIdentifier)
    }

    /// The certification elements (6.3.1) of a development-and-test CD.
    static func content(vendorID: UInt16, productIDs: [UInt16], deviceType: UInt32) -> [UInt8] {
        TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .unsigned(1)),  // format_version
                TLVElement(.context(1), .unsigned(UInt64(vendorID))),
                TLVElement(.context(2), .array(productIDs.map { TLVElement(.unsigned(UInt64($0))) })),
                TLVElement(.context(3), .unsigned(UInt64(deviceType))),
                TLVElement(.context(4), .utf8("ZIG20142ZB330003-24")),  // certificate_id: 19 characters, a test one
                TLVElement(.context(5), .unsigned(0)),  // security_level
                TLVElement(.context(6), .unsigned(0)),  // security_information
                TLVElement(.context(7), .unsigned(1)),  // version_number
                TLVElement(.context(8), .unsigned(0)),  // certification_type: development and test
            ]))
    }

    static func signed(content: [UInt8], key: P256.Signing.PrivateKey, keyIdentifier: [UInt8]) throws -> [UInt8] {
        let signature = Array(try key.signature(for: content).derRepresentation)
        let signerInfo: DER = .sequence([
            .integer([3]), .implicitPrimitive(0, keyIdentifier), DER.sha256, DER.ecdsaWithSHA256, .octetString(signature),
        ])
        let signedData: DER = .sequence([
            .integer([3]),
            .set([DER.sha256]),
            .sequence([.objectIdentifier([1, 2, 840, 113549, 1, 7, 1]), .explicit(0, .octetString(content))]),
            .set([signerInfo]),
        ])
        return DER.sequence([.objectIdentifier([1, 2, 840, 113549, 1, 7, 2]), .explicit(0, signedData)]).encoded
    }
}
