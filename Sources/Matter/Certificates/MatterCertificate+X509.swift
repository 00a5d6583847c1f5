/// The X.509 form of a Matter TLV certificate (Matter specification 6.5.13), as its signature covers it.
extension MatterCertificate {
    public func tbsCertificate() -> [UInt8] {
        DER.sequence([
            .explicit(0, .integer([2])),
            .integerContent(serialNumber),
            DER.ecdsaWithSHA256,
            MatterDN.der(issuer),
            .sequence([Self.time(notBefore), notAfter == 0 ? .generalizedTime("99991231235959Z") : Self.time(notAfter)]),
            MatterDN.der(subject),
            DER.p256PublicKey(publicKey),
            .explicit(3, .sequence(extensions.map(Self.der))),
        ]).encoded
    }

    /// The whole X.509 certificate in DER.
    public func x509() -> [UInt8] {
        DER.sequence([.raw(tbsCertificate()), DER.ecdsaWithSHA256, .bitString(DER.ecdsaSignature(raw: signature))]).encoded
    }

    /// Seconds since 2000-01-01 as an X.509 time.
    static func time(_ matterSeconds: UInt32) -> DER {
        X509Time.der(secondsSince1970: Int64(matterSeconds) + MatterDN.matterEpoch)
    }

    static func der(_ extensionValue: Extension) -> DER {
        switch extensionValue {
        case .basicConstraints(let isCA, let pathLength): X509Extension.basicConstraints(isCA: isCA, pathLength: pathLength)
        case .keyUsage(let flags): X509Extension.keyUsage(flags)
        case .extendedKeyUsage(let purposes):
            X509Extension.extendedKeyUsage(purposes.map { [1: 1, 2: 2, 3: 3, 4: 4, 5: 8, 6: 9][$0] ?? 0 })
        case .subjectKeyID(let id): X509Extension.subjectKeyIdentifier(id)
        case .authorityKeyID(let id): X509Extension.authorityKeyIdentifier(id)
        case .future(let der): .raw(der)
        }
    }
}

/// Distinguished names in Matter certificates: the TLV tags, their X.509 attribute types and value forms.
enum MatterDN {
    static let matterEpoch: Int64 = 946_684_800  // 2000-01-01T00:00:00Z
    static let nodeID: UInt8 = 17
    static let firmwareSigningID: UInt8 = 18
    static let icacID: UInt8 = 19
    static let rcacID: UInt8 = 20
    static let fabricID: UInt8 = 21
    static let nocCAT: UInt8 = 22

    static func isMatterSpecific(_ tag: UInt8) -> Bool { (17...22).contains(tag) }

    static func oid(_ tag: UInt8) -> [UInt64]? {
        switch tag & 0x7F {
        case 1: [2, 5, 4, 3]
        case 2: [2, 5, 4, 4]
        case 3: [2, 5, 4, 5]
        case 4: [2, 5, 4, 6]
        case 5: [2, 5, 4, 7]
        case 6: [2, 5, 4, 8]
        case 7: [2, 5, 4, 10]
        case 8: [2, 5, 4, 11]
        case 9: [2, 5, 4, 12]
        case 10: [2, 5, 4, 41]
        case 11: [2, 5, 4, 42]
        case 12: [2, 5, 4, 43]
        case 13: [2, 5, 4, 44]
        case 14: [2, 5, 4, 46]
        case 15: [2, 5, 4, 65]
        case 16: [0, 9, 2342, 19_200_300, 100, 1, 25]
        case 17: MatterOID.nodeID
        case 18: MatterOID.firmwareSigningID
        case 19: MatterOID.icacID
        case 20: MatterOID.rcacID
        case 21: MatterOID.fabricID
        case 22: MatterOID.nocCAT
        default: nil
        }
    }

    static func der(_ attributes: [MatterCertificate.Attribute]) -> DER {
        .sequence(
            attributes.map { attribute in
                let tag = attribute.tag
                let value: DER
                switch attribute.value {
                case .unsigned(let number):
                    let digits = String(number, radix: 16, uppercase: true)
                    let width = tag == nocCAT ? 8 : 16
                    value = .utf8String(String(repeating: "0", count: max(0, width - digits.count)) + digits)
                case .utf8(let text) where tag & 0x7F == 16: value = .ia5String(text)
                case .utf8(let text) where tag & 0x80 != 0: value = .printableString(text)
                case .utf8(let text): value = .utf8String(text)
                default: value = .null
                }
                return .set([.sequence([.objectIdentifier(oid(tag) ?? []), value])])
            })
    }
}
