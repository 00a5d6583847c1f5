import Crypto
import Testing

@testable import Matter

@Suite("Matter attestation with the SDK's test credentials")
struct AttestationTests {
    /// The TBSCertificate (or CertificationRequestInfo) inside a DER certificate or request, and its
    /// signature: SEQUENCE { tbs, algorithm (12 bytes), BIT STRING { 0, DER signature } }.
    static func split(_ certificate: [UInt8]) throws -> (tbs: [UInt8], signature: P256.Signing.ECDSASignature) {
        func headerLength(_ bytes: ArraySlice<UInt8>) -> (header: Int, content: Int) {
            let first = bytes[bytes.startIndex + 1]
            guard first & 0x80 != 0 else { return (2, Int(first)) }
            let count = Int(first & 0x7F)
            return (2 + count, bytes[(bytes.startIndex + 2)..<(bytes.startIndex + 2 + count)].reduce(0) { $0 << 8 | Int($1) })
        }
        let outer = headerLength(certificate[...])
        let inner = headerLength(certificate[outer.header...])
        let tbsEnd = outer.header + inner.header + inner.content
        let signature = try P256.Signing.ECDSASignature(derRepresentation: certificate[(tbsEnd + 12 + 3)...])
        return (Array(certificate[outer.header..<tbsEnd]), signature)
    }

    @Test("the DAC is signed by the SDK's test PAI and names it as its issuer")
    func dacChainsToThePAI() throws {
        let key = P256.Signing.PrivateKey()
        let dac = try DeviceAttestation.issueTestDAC(for: key.publicKey, notBefore: 1_790_000_000)
        let pai = TestCredentials.pai
        let paiKey = try P256.Signing.PrivateKey(pemRepresentation: TestCredentials.paiPrivateKey).publicKey
        #expect(pai.firstRange(of: Array(paiKey.x963Representation)) != nil)  // the kept key is the certificate's
        #expect(pai.firstRange(of: TestCredentials.paiSubject.encoded) != nil)  // the DAC's issuer is the PAI's subject, byte for byte
        #expect(pai.firstRange(of: TestCredentials.paiKeyIdentifier) != nil)
        let (tbs, signature) = try Self.split(dac)
        #expect(paiKey.isValidSignature(signature, for: tbs))
        #expect(dac.firstRange(of: Array(key.publicKey.x963Representation)) != nil)
        #expect(dac.firstRange(of: Array("FFF1".utf8)) != nil && dac.firstRange(of: Array("8000".utf8)) != nil)
    }

    @Test("the Certification Declaration carries vendor 0xFFF1 and product 0x8000, signed with the test CD key")
    func certificationDeclaration() throws {
        let cd = try CertificationDeclaration.test(vendorID: 0xFFF1, productIDs: [0x8000], deviceType: 0x0016)
        #expect(cd.firstRange(of: TestCredentials.cdSigningKeyIdentifier) != nil)
        let cdCertificate = base64Decode(TestCredentials.cdSigningCertificate)
        let cdKey = try P256.Signing.PrivateKey(pemRepresentation: TestCredentials.cdSigningPrivateKey).publicKey
        #expect(cdCertificate.firstRange(of: Array(cdKey.x963Representation)) != nil)
        #expect(cdCertificate.firstRange(of: TestCredentials.cdSigningKeyIdentifier) != nil)
        // The eContent (the TLV elements) is in the envelope; the signature, the last OCTET STRING, covers it.
        let content = CertificationDeclaration.content(vendorID: 0xFFF1, productIDs: [0x8000], deviceType: 0x0016)
        #expect(cd.firstRange(of: [0x04, UInt8(content.count)] + content) != nil)
        let elements = try TLVDecoder.decode(content).value
        #expect(elements[context: 1] == .unsigned(0xFFF1))
        #expect(elements[context: 2] == .array([TLVElement(.unsigned(0x8000))]))
        #expect(elements[context: 8] == .unsigned(0))  // development and test
        let endsTheEnvelope: (Int) -> Bool = { index in cd[index] == 0x04 && index + 2 + Int(cd[index + 1]) == cd.count }
        let signatureStart = try #require((0..<(cd.count - 1)).last(where: endsTheEnvelope))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: cd[(signatureStart + 2)...])
        #expect(cdKey.isValidSignature(signature, for: content))
    }

    @Test("attestation and NOCSR elements are signed with the DAC key over the session's challenge")
    func elementsSignatures() throws {
        let key = P256.Signing.PrivateKey()
        let attestation = try DeviceAttestation.test(
            dacKey: key, dac: try DeviceAttestation.issueTestDAC(for: key.publicKey, notBefore: 1_790_000_000), deviceType: 0x16)
        let nonce = [UInt8](repeating: 7, count: 32)
        let challenge = [UInt8](repeating: 9, count: 16)
        let (elements, signature) = try attestation.attestationElements(nonce: nonce, challenge: challenge)
        #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: elements + challenge))
        #expect(try TLVDecoder.decode(elements).value[context: 2] == .bytes(nonce))
        let operational = P256.Signing.PrivateKey()
        let csr = try CertificateSigningRequest.make(for: operational)
        let (info, csrSelfSignature) = try Self.split(csr)
        #expect(operational.publicKey.isValidSignature(csrSelfSignature, for: info))
        let (csrElements, csrSignature) = try attestation.csrElements(csr: csr, nonce: nonce, challenge: challenge)
        #expect(
            key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: csrSignature), for: csrElements + challenge))
    }

    @Test("DER: lengths, positive integers, object identifiers, named bits and times")
    func der() {
        #expect(DER.octetString([UInt8](repeating: 1, count: 200)).encoded.prefix(3) == [0x04, 0x81, 200])
        #expect(DER.integer([0x80]).encoded == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.integer([0x00, 0x00, 0x05]).encoded == [0x02, 0x01, 0x05])
        #expect(DER.objectIdentifier([1, 3, 6, 1, 4, 1, 37244, 2, 1]).encoded == hex("060a2b0601040182a27c0201"))
        #expect(DER.namedBits(0x0001).encoded == [0x03, 0x02, 0x07, 0x80])  // digitalSignature
        #expect(DER.namedBits(0x0060).encoded == [0x03, 0x02, 0x01, 0x06])  // keyCertSign, cRLSign
        #expect(X509Time.der(secondsSince1970: 1_624_890_223) == .utcTime("210628142343Z"))
        #expect(X509Time.der(secondsSince1970: 2_556_057_600) == .generalizedTime("20501231000000Z"))
    }
}
