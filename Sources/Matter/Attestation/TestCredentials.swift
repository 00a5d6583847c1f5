/// The Matter SDK's published test attestation material, public and for development only: a
/// Product Attestation Intermediate for vendor 0xFFF1 and product 0x8000 with its private key, and
/// the key that signs test Certification Declarations, with its certificate. Controllers in
/// development trust the PAI's root ("Matter Test PAA", vendor 0xFFF1) and this CD signing key.
///
/// Source: github.com/project-chip/connectedhomeip, `credentials/test/attestation/
/// Chip-Test-PAI-FFF1-8000-{Cert,Key}.pem` (commit 9f094a32ed92891315e4ddb658be009d2587aeab) and
/// `credentials/test/certification-declaration/Chip-Test-CD-Signing-{Cert,Key}.pem`.
/// Copyright Project CHIP Authors, Apache License 2.0. The root it chains to is
/// `credentials/development/paa-root-certs/Chip-Test-PAA-FFF1-Cert.pem` (kept for the tests in
/// Tests/matter/paa/).
public enum TestCredentials {
    public static let vendorID: UInt16 = 0xFFF1
    public static let productID: UInt16 = 0x8000

    /// Subject: CN=Matter Test PAI, VID FFF1, PID 8000; issuer: CN=Matter Test PAA, VID FFF1.
    static let paiCertificate = """
        MIIB1DCCAXqgAwIBAgIIPmzmUJrYQM0wCgYIKoZIzj0EAwIwMDEYMBYGA1UEAwwP
        TWF0dGVyIFRlc3QgUEFBMRQwEgYKKwYBBAGConwCAQwERkZGMTAgFw0yMTA2Mjgx
        NDIzNDNaGA85OTk5MTIzMTIzNTk1OVowRjEYMBYGA1UEAwwPTWF0dGVyIFRlc3Qg
        UEFJMRQwEgYKKwYBBAGConwCAQwERkZGMTEUMBIGCisGAQQBgqJ8AgIMBDgwMDAw
        WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASA3fEbIo8+MfY7z1eY2hRiOuu96C7z
        eO6tv7GP4avOMdCO1LIGBLbMxtm1+rZOfeEMt0vgF8nsFRYFbXDyzQsio2YwZDAS
        BgNVHRMBAf8ECDAGAQH/AgEAMA4GA1UdDwEB/wQEAwIBBjAdBgNVHQ4EFgQUr0K3
        CU3r1RXsbs8zuBEVIl8yUogwHwYDVR0jBBgwFoAUav0idx9RH+y/FkGXZxDc3DGh
        cX4wCgYIKoZIzj0EAwIDSAAwRQIhAJbJyM8uAYhgBdj1vHLAe3X9mldpWsSRETET
        i+oDPOUDAiAlVJQ75X1T1sR199I+v8/CA2zSm6Y5PsfvrYcUq3GCGQ==
        """

    static let paiPrivateKey = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIEZ7LYpps1z+a9sPw2qBp9jj5F0GLffNuCJY88hAHcMYoAoGCCqGSM49
        AwEHoUQDQgAEgN3xGyKPPjH2O89XmNoUYjrrvegu83jurb+xj+GrzjHQjtSyBgS2
        zMbZtfq2Tn3hDLdL4BfJ7BUWBW1w8s0LIg==
        -----END EC PRIVATE KEY-----
        """

    /// The PAI's subject, byte for byte as in its certificate: the DAC's issuer.
    static var paiSubject: DER {
        .sequence([
            .set([.sequence([.objectIdentifier([2, 5, 4, 3]), .utf8String("Matter Test PAI")])]),
            .set([.sequence([.objectIdentifier(MatterOID.vendorID), .utf8String("FFF1")])]),
            .set([.sequence([.objectIdentifier(MatterOID.productID), .utf8String("8000")])]),
        ])
    }

    /// The PAI's subject key identifier: the DAC's authority key identifier.
    static let paiKeyIdentifier = hex("AF42B7094DEBD515EC6ECF33B81115225F325288")

    /// CN=Matter Test CD Signing Authority, self-signed; its key identifier names it in a CD.
    static let cdSigningCertificate = """
        MIIBszCCAVqgAwIBAgIIRdrzneR6oI8wCgYIKoZIzj0EAwIwKzEpMCcGA1UEAwwg
        TWF0dGVyIFRlc3QgQ0QgU2lnbmluZyBBdXRob3JpdHkwIBcNMjEwNjI4MTQyMzQz
        WhgPOTk5OTEyMzEyMzU5NTlaMCsxKTAnBgNVBAMMIE1hdHRlciBUZXN0IENEIFNp
        Z25pbmcgQXV0aG9yaXR5MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEPDmJIkUr
        VcrzicJb0bykZWlSzLkOiGkkmthHRlMBTL+V1oeWXgNrUhxRA35rjO3vyh60QEZp
        T6CIgu7WUZ3suqNmMGQwEgYDVR0TAQH/BAgwBgEB/wIBATAOBgNVHQ8BAf8EBAMC
        AQYwHQYDVR0OBBYEFGL6gjNZrPqplj4c+hQK3fUE83FgMB8GA1UdIwQYMBaAFGL6
        gjNZrPqplj4c+hQK3fUE83FgMAoGCCqGSM49BAMCA0cAMEQCICxUXOTkV9im8NnZ
        u+vW7OHd/n+MbZps83UyH8b6xxOEAiBUB3jodDlyUn7t669YaGIgtUB48s1OYqdq
        58u5L/VMiw==
        """

    static let cdSigningPrivateKey = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIK7zSEEW6UgexXvgRy30G/SZBk5QJK2GnspeiJgC1IB1oAoGCCqGSM49
        AwEHoUQDQgAEPDmJIkUrVcrzicJb0bykZWlSzLkOiGkkmthHRlMBTL+V1oeWXgNr
        UhxRA35rjO3vyh60QEZpT6CIgu7WUZ3sug==
        -----END EC PRIVATE KEY-----
        """

    static let cdSigningKeyIdentifier = hex("62FA823359ACFAA9963E1CFA140ADDF504F37160")

    /// The PAI certificate in DER.
    public static var pai: [UInt8] { base64Decode(paiCertificate) }
}

/// Matter's X.509 attribute types (Matter specification 6.5.6): 1.3.6.1.4.1.37244.…
enum MatterOID {
    static let vendorID: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 2, 1]
    static let productID: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 2, 2]
    static let nodeID: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 1, 1]
    static let firmwareSigningID: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 1, 2]
    static let icacID: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 1, 3]
    static let rcacID: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 1, 4]
    static let fabricID: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 1, 5]
    static let nocCAT: [UInt64] = [1, 3, 6, 1, 4, 1, 37244, 1, 6]
}

/// Base64 (RFC 4648) to bytes; characters outside the alphabet (line breaks, padding) are skipped.
func base64Decode(_ text: String) -> [UInt8] {
    var bits: UInt32 = 0
    var count = 0
    var out: [UInt8] = []
    for character in text.utf8 {
        let value: UInt8
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): value = 62
        case UInt8(ascii: "/"): value = 63
        default: continue
        }
        bits = bits << 6 | UInt32(value)
        count += 6
        if count >= 8 {
            count -= 8
            out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
        }
    }
    return out
}
