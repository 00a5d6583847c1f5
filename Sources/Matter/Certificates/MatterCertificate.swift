import Crypto

/// A Matter operational certificate in its TLV form (Matter specification 6.5): the root (RCAC),
/// intermediate (ICAC) and node (NOC) certificates a commissioner installs. Its signature covers
/// the X.509 form, which `tbsCertificate` rebuilds byte for byte.
public struct MatterCertificate: Sendable, Equatable {
    /// A distinguished name attribute: its TLV tag (0x80 set for a PrintableString) and value.
    public struct Attribute: Sendable, Equatable {
        public var tag: UInt8
        public var value: TLVValue
    }

    public enum Extension: Sendable, Equatable {
        case basicConstraints(isCA: Bool, pathLength: UInt8?)
        case keyUsage(UInt16)
        case extendedKeyUsage([UInt8])
        case subjectKeyID([UInt8])
        case authorityKeyID([UInt8])
        case future([UInt8])
    }

    public var serialNumber: [UInt8]
    public var issuer: [Attribute]
    /// Seconds since the Matter epoch (2000-01-01T00:00:00Z); `notAfter` 0 means no expiry.
    public var notBefore: UInt32
    public var notAfter: UInt32
    public var subject: [Attribute]
    public var publicKey: [UInt8]
    public var extensions: [Extension]
    /// ECDSA-SHA256 over `tbsCertificate`, r ‖ s.
    public var signature: [UInt8]

    public init(tlv bytes: [UInt8]) throws {
        let certificate = try TLVDecoder.decode(bytes).value
        guard case .structure = certificate else { throw MatterError.certificate("a Matter certificate must be a structure") }
        serialNumber = try certificate.bytesField(1, "serial-num", length: 1...20)
        guard try certificate.field(2, "sig-algo", as: UInt8.self) == 1 else {
            throw MatterError.certificate("sig-algo is not ecdsa-with-sha256")
        }
        issuer = try Self.name(certificate[context: 3], "issuer")
        notBefore = try certificate.field(4, "not-before", as: UInt32.self)
        notAfter = try certificate.field(5, "not-after", as: UInt32.self)
        subject = try Self.name(certificate[context: 6], "subject")
        guard try certificate.field(7, "pub-key-algo", as: UInt8.self) == 1, try certificate.field(8, "ec-curve-id", as: UInt8.self) == 1
        else {
            throw MatterError.certificate("the public key is not a P-256 key")
        }
        publicKey = try certificate.bytesField(9, "ec-pub-key", length: 65...65)
        guard case .list(let extensionElements)? = certificate[context: 10] else {
            throw MatterError.certificate("extensions (tag 10) are missing")
        }
        extensions = try extensionElements.map(Self.extensionValue)
        signature = try certificate.bytesField(11, "signature", length: 64...64)
    }

    private static func name(_ value: TLVValue?, _ what: String) throws -> [Attribute] {
        guard case .list(let elements)? = value, !elements.isEmpty, elements.count <= 10 else {
            throw MatterError.certificate("\(what) must be a list of 1 to 10 attributes")
        }
        return try elements.map { element in
            guard case .context(let tag) = element.tag, MatterDN.oid(tag) != nil else {
                throw MatterError.certificate("\(what) has an unknown attribute \(element.tag)")
            }
            switch (MatterDN.isMatterSpecific(tag), element.value) {
            case (true, .unsigned), (false, .utf8): return Attribute(tag: tag, value: element.value)
            default: throw MatterError.certificate("\(what) attribute \(tag) has the wrong type")
            }
        }
    }

    private static func extensionValue(_ element: TLVElement) throws -> Extension {
        switch (element.tag, element.value) {
        case (.context(1), .structure):
            guard let isCA = element.value[context: 1]?.boolValue else { throw MatterError.certificate("basic-constraints without is-ca") }
            let pathLength = element.value[context: 2] == nil ? nil : try element.value.field(2, "path-len-constraint", as: UInt8.self)
            return .basicConstraints(isCA: isCA, pathLength: pathLength)
        case (.context(2), .unsigned(let flags)) where flags <= 0x1FF: return .keyUsage(UInt16(flags))
        case (.context(3), .array(let purposes)):
            return .extendedKeyUsage(
                try purposes.map {
                    guard let purpose = $0.value.unsignedValue, (1...6).contains(purpose) else {
                        throw MatterError.certificate("unknown key purpose")
                    }
                    return UInt8(purpose)
                })
        case (.context(4), .bytes(let id)) where id.count == 20: return .subjectKeyID(id)
        case (.context(5), .bytes(let id)) where id.count == 20: return .authorityKeyID(id)
        case (.context(6), .bytes(let der)): return .future(der)
        default: throw MatterError.certificate("extension \(element.tag) is not understood")
        }
    }

    // MARK: What the certificate says

    func subjectValue(_ tag: UInt8) -> UInt64? {
        subject.first { $0.tag == tag }?.value.unsignedValue
    }

    public var nodeID: UInt64? { subjectValue(MatterDN.nodeID) }
    public var fabricID: UInt64? { subjectValue(MatterDN.fabricID) }
    public var caseAuthenticatedTags: [UInt32] {
        subject.filter { $0.tag == MatterDN.nocCAT }.compactMap { $0.value.unsignedValue.flatMap { UInt32(exactly: $0) } }
    }
    public var isCA: Bool {
        extensions.contains { if case .basicConstraints(true, _) = $0 { true } else { false } }
    }
    public var subjectKeyID: [UInt8]? {
        extensions.lazy.compactMap { if case .subjectKeyID(let id) = $0 { id } else { nil } }.first
    }
    public var authorityKeyID: [UInt8]? {
        extensions.lazy.compactMap { if case .authorityKeyID(let id) = $0 { id } else { nil } }.first
    }

    /// Whether `issuer`'s key signed this certificate (over its X.509 form).
    public func isSigned(by issuerPublicKey: [UInt8]) -> Bool {
        guard let key = try? P256.Signing.PublicKey(x963Representation: issuerPublicKey),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return false }
        return key.isValidSignature(signature, for: tbsCertificate())
    }
}

extension MatterError {
    static func certificate(_ reason: String) -> MatterError { .unexpectedTLV("certificate: \(reason)") }
}
