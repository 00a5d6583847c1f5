public import Crypto

/// What the device proves itself with while commissioned (Matter specification 6.2): its Device
/// Attestation Certificate and key, the PAI that signed the DAC, and the Certification Declaration.
/// Attestation and CSR elements are signed with the DAC key over the session's attestation challenge.
public struct DeviceAttestation: Sendable {
    public let dacKey: P256.Signing.PrivateKey
    public let dac: [UInt8]
    public let pai: [UInt8]
    public let certificationDeclaration: [UInt8]

    public init(dacKey: P256.Signing.PrivateKey, dac: [UInt8], pai: [UInt8], certificationDeclaration: [UInt8]) {
        self.dacKey = dacKey
        self.dac = dac
        self.pai = pai
        self.certificationDeclaration = certificationDeclaration
    }

    /// A device of the SDK's test vendor 0xFFF1 and product 0x8000: `dac` (made with
    /// `issueTestDAC` and kept) under the SDK's test PAI, and a test CD for `deviceType`.
    public static func test(dacKey: P256.Signing.PrivateKey, dac: [UInt8], deviceType: UInt32) throws -> DeviceAttestation {
        DeviceAttestation(
            dacKey: dacKey, dac: dac, pai: TestCredentials.pai,
            certificationDeclaration: try CertificationDeclaration.test(
                vendorID: TestCredentials.vendorID, productIDs: [TestCredentials.productID], deviceType: deviceType))
    }

    /// A DAC for `key`, vendor 0xFFF1 and product 0x8000, signed by the SDK's test PAI, valid from
    /// `notBefore` (seconds since 1970) with no expiry (99991231235959Z, as the specification allows).
    public static func issueTestDAC(for key: P256.Signing.PublicKey, notBefore: Int64, serial: [UInt8]? = nil) throws -> [UInt8] {
        let issuerKey = try P256.Signing.PrivateKey(pemRepresentation: TestCredentials.paiPrivateKey)
        let point = Array(key.x963Representation)
        let vendor = String(TestCredentials.vendorID, radix: 16, uppercase: true)
        let product = String(TestCredentials.productID, radix: 16, uppercase: true)
        let subject: DER = .sequence([
            .set([.sequence([.objectIdentifier([2, 5, 4, 3]), .utf8String("homegate matter-demo DAC")])]),
            .set([.sequence([.objectIdentifier(MatterOID.vendorID), .utf8String(vendor)])]),
            .set([.sequence([.objectIdentifier(MatterOID.productID), .utf8String(product)])]),
        ])
        let extensions: [DER] = [
            X509Extension.basicConstraints(isCA: false, pathLength: nil),
            X509Extension.keyUsage(0x0001),  // digitalSignature
            X509Extension.subjectKeyIdentifier(Array(Insecure.SHA1.hash(data: point))),
            X509Extension.authorityKeyIdentifier(TestCredentials.paiKeyIdentifier),
        ]
        let tbs: DER = .sequence([
            .explicit(0, .integer([2])),
            .integer(serial ?? [UInt8.random(in: 1...0x7F)] + (0..<7).map { _ in UInt8.random(in: 0...255) }),
            DER.ecdsaWithSHA256,
            TestCredentials.paiSubject,
            .sequence([X509Time.der(secondsSince1970: notBefore), .generalizedTime("99991231235959Z")]),
            subject,
            DER.p256PublicKey(point),
            .explicit(3, .sequence(extensions)),
        ])
        return try X509Extension.signed(tbs.encoded, with: issuerKey)
    }

    /// AttestationResponse's elements and signature for the commissioner's 32-byte nonce.
    public func attestationElements(nonce: [UInt8], challenge: [UInt8]) throws -> (elements: [UInt8], signature: [UInt8]) {
        let elements = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes(certificationDeclaration)),
                TLVElement(.context(2), .bytes(nonce)),
                TLVElement(.context(3), .unsigned(0)),  // timestamp: no clock the commissioner could trust
            ]))
        return (elements, try sign(elements + challenge))
    }

    /// CSRResponse's NOCSR elements and signature: `csr` for the new operational key, bound to the
    /// commissioner's nonce and this session.
    public func csrElements(csr: [UInt8], nonce: [UInt8], challenge: [UInt8]) throws -> (elements: [UInt8], signature: [UInt8]) {
        let elements = TLVEncoder.encode(.structure([TLVElement(.context(1), .bytes(csr)), TLVElement(.context(2), .bytes(nonce))]))
        return (elements, try sign(elements + challenge))
    }

    /// ECDSA-SHA256 with the DAC key, in Matter's raw form r ‖ s.
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try dacKey.signature(for: message).rawRepresentation)
    }
}

/// The X.509 extensions Matter certificates carry, and signing a TBSCertificate.
enum X509Extension {
    static func basicConstraints(isCA: Bool, pathLength: UInt8?) -> DER {
        var fields: [DER] = isCA ? [.boolean(true)] : []
        if let pathLength { fields.append(.integer([pathLength])) }
        return .sequence([.objectIdentifier([2, 5, 29, 19]), .boolean(true), .octetString(DER.sequence(fields).encoded)])
    }

    /// KeyUsage with Matter's bit numbering (bit 0 digitalSignature … bit 8 decipherOnly); critical.
    static func keyUsage(_ flags: UInt16) -> DER {
        .sequence([.objectIdentifier([2, 5, 29, 15]), .boolean(true), .octetString(DER.namedBits(flags).encodedAsBitString)])
    }

    static func extendedKeyUsage(_ purposes: [UInt8]) -> DER {
        let oids: [DER] = purposes.map { .objectIdentifier([1, 3, 6, 1, 5, 5, 7, 3, UInt64($0)]) }
        return .sequence([.objectIdentifier([2, 5, 29, 37]), .boolean(true), .octetString(DER.sequence(oids).encoded)])
    }

    static func subjectKeyIdentifier(_ id: [UInt8]) -> DER {
        .sequence([.objectIdentifier([2, 5, 29, 14]), .octetString(DER.octetString(id).encoded)])
    }

    static func authorityKeyIdentifier(_ id: [UInt8]) -> DER {
        .sequence([.objectIdentifier([2, 5, 29, 35]), .octetString(DER.sequence([.implicitPrimitive(0, id)]).encoded)])
    }

    /// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }.
    static func signed(_ tbs: [UInt8], with key: P256.Signing.PrivateKey) throws -> [UInt8] {
        let signature = try key.signature(for: tbs).derRepresentation
        return DER.sequence([.raw(tbs), DER.ecdsaWithSHA256, .bitString(Array(signature))]).encoded
    }
}

extension [UInt8] {
    /// Named-bit content bytes (unused-bit count first) as a whole BIT STRING.
    fileprivate var encodedAsBitString: [UInt8] { DER.tlv(0x03, self) }
}

/// X.509 times: UTCTime through 2049, GeneralizedTime after (RFC 5280 4.1.2.5).
enum X509Time {
    static func der(secondsSince1970 seconds: Int64) -> DER {
        let (year, month, day, hour, minute, second) = civil(seconds)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let rest = two(month) + two(day) + two(hour) + two(minute) + two(second) + "Z"
        return year < 2050 ? .utcTime(two(year % 100) + rest) : .generalizedTime("\(year)" + rest)
    }

    /// Year, month, day, hour, minute, second of a Unix time (Howard Hinnant's days-from-civil, inverted).
    static func civil(_ seconds: Int64) -> (Int64, Int64, Int64, Int64, Int64, Int64) {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
    }
}
