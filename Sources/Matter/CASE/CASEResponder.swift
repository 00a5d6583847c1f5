import Crypto

/// The responder's side of CASE (Matter specification 4.14.2): Sigma1 → Sigma2 (or Sigma2Resume
/// for a session it can resume), Sigma3 → the session keys, with the initiator's NOC chain checked
/// against the fabric's root.
struct CASEResponder: Sendable {
    /// What a finished CASE gives the message layer.
    struct Established: Sendable {
        var keys: SessionKeys
        var fabric: Fabric
        var peerNodeID: UInt64
        var peerTags: [UInt32]
        var initiatorSessionID: UInt16
        var initiatorParameters: SessionParameters
        var resumption: Resumption
    }

    /// What a later Sigma1 may resume from (4.14.2.2.1).
    struct Resumption: Sendable {
        var id: [UInt8]
        var sharedSecret: [UInt8]
        var fabricIndex: UInt8
        var peerNodeID: UInt64
        var peerTags: [UInt32]
    }

    let fabric: Fabric
    let responderSessionID: UInt16
    let initiatorSessionID: UInt16
    let initiatorParameters: SessionParameters
    let initiatorEphemeralKey: [UInt8]
    let ephemeralKey: P256.KeyAgreement.PrivateKey
    let sharedSecret: [UInt8]
    let resumptionID: [UInt8]
    /// Sigma1 ‖ Sigma2, for the Sigma3 and session keys' salts.
    let transcript: [UInt8]

    struct Sigma1 {
        var initiatorRandom: [UInt8]
        var initiatorSessionID: UInt16
        var destinationID: [UInt8]
        var ephemeralKey: [UInt8]
        var parameters: SessionParameters?
        var resumptionID: [UInt8]?
        var resumeMIC: [UInt8]?

        init(_ bytes: [UInt8]) throws {
            let message = try TLVDecoder.decode(bytes).value
            initiatorRandom = try message.bytesField(1, "initiatorRandom", length: 32...32)
            initiatorSessionID = try message.field(2, "initiatorSessionId", as: UInt16.self)
            destinationID = try message.bytesField(3, "destinationId", length: 32...32)
            ephemeralKey = try message.bytesField(4, "initiatorEphPubKey", length: 65...65)
            parameters = try message[context: 5].map(SessionParameters.init(tlv:))
            resumptionID = message[context: 6] == nil ? nil : try message.bytesField(6, "resumptionID", length: 16...16)
            resumeMIC = message[context: 7] == nil ? nil : try message.bytesField(7, "initiatorResumeMIC", length: 16...16)
        }
    }

    /// The destination id a Sigma1 names a fabric and node with (4.14.2.4.1).
    static func destinationID(initiatorRandom: [UInt8], fabric: Fabric) -> [UInt8] {
        let message = initiatorRandom + fabric.rootPublicKey + littleEndian(fabric.fabricID) + littleEndian(fabric.nodeID)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: fabric.operationalIPK)))
    }

    /// Answers Sigma1 with Sigma2 for the fabric its destination id names.
    static func start(
        sigma1 bytes: [UInt8], fabrics: [Fabric], responderSessionID: UInt16, parameters: SessionParameters
    ) throws -> (CASEResponder, sigma2: [UInt8]) {
        let sigma1 = try Sigma1(bytes)
        guard
            let fabric = fabrics.first(where: { destinationID(initiatorRandom: sigma1.initiatorRandom, fabric: $0) == sigma1.destinationID }
            )
        else {
            throw CASEError.noSharedRoot
        }
        let ephemeralKey = P256.KeyAgreement.PrivateKey()
        let ephemeralPublic = Array(ephemeralKey.publicKey.x963Representation)
        let sharedSecret: [UInt8]
        do {
            let peer = try P256.KeyAgreement.PublicKey(x963Representation: sigma1.ephemeralKey)
            sharedSecret = try ephemeralKey.sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { Array($0) }
        } catch {
            throw CASEError.invalid("the initiator's ephemeral key is not a P-256 point")
        }
        let responderRandom = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let resumptionID = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let ipk = fabric.operationalIPK
        let s2k = derive(sharedSecret, salt: ipk + responderRandom + ephemeralPublic + Array(SHA256.hash(data: bytes)), info: "Sigma2")
        var tbs: [TLVElement] = [TLVElement(.context(1), .bytes(fabric.noc))]
        if let icac = fabric.icac { tbs.append(TLVElement(.context(2), .bytes(icac))) }
        tbs += [TLVElement(.context(3), .bytes(ephemeralPublic)), TLVElement(.context(4), .bytes(sigma1.ephemeralKey))]
        let signature = Array(try fabric.operationalKey.signature(for: TLVEncoder.encode(.structure(tbs))).rawRepresentation)
        var tbe: [TLVElement] = [TLVElement(.context(1), .bytes(fabric.noc))]
        if let icac = fabric.icac { tbe.append(TLVElement(.context(2), .bytes(icac))) }
        tbe += [TLVElement(.context(3), .bytes(signature)), TLVElement(.context(4), .bytes(resumptionID))]
        let encrypted = try AESCCM.seal(
            TLVEncoder.encode(.structure(tbe)), key: s2k, nonce: Array("NCASE_Sigma2N".utf8), authenticating: [])
        let sigma2 = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes(responderRandom)),
                TLVElement(.context(2), .unsigned(UInt64(responderSessionID))),
                TLVElement(.context(3), .bytes(ephemeralPublic)),
                TLVElement(.context(4), .bytes(encrypted)),
                TLVElement(.context(5), parameters.tlv),
            ]))
        let responder = CASEResponder(
            fabric: fabric, responderSessionID: responderSessionID, initiatorSessionID: sigma1.initiatorSessionID,
            initiatorParameters: sigma1.parameters ?? SessionParameters(), initiatorEphemeralKey: sigma1.ephemeralKey,
            ephemeralKey: ephemeralKey,
            sharedSecret: sharedSecret, resumptionID: resumptionID, transcript: bytes + sigma2)
        return (responder, sigma2)
    }

    /// Checks Sigma3: the initiator's NOC chain under the fabric's root and its signature; the session.
    func sigma3(_ bytes: [UInt8]) throws -> Established {
        let message = try TLVDecoder.decode(bytes).value
        let encrypted = try message.bytesField(1, "encrypted3", length: 17...1200)
        let ipk = fabric.operationalIPK
        let s3k = Self.derive(sharedSecret, salt: ipk + Array(SHA256.hash(data: transcript)), info: "Sigma3")
        let plaintext: [UInt8]
        do {
            plaintext = try AESCCM.open(encrypted, key: s3k, nonce: Array("NCASE_Sigma3N".utf8), authenticating: [])
        } catch {
            throw CASEError.invalid("Sigma3 does not decrypt")
        }
        let tbe = try TLVDecoder.decode(plaintext).value
        let nocBytes = try tbe.bytesField(1, "initiatorNOC", length: 1...400)
        let icacBytes = tbe[context: 2] == nil ? nil : try tbe.bytesField(2, "initiatorICAC", length: 1...400)
        let signature = try tbe.bytesField(3, "signature", length: 64...64)
        let noc = try MatterCertificate(tlv: nocBytes)
        let icac = try icacBytes.map { try MatterCertificate(tlv: $0) }
        if let icac {
            guard icac.isCA, icac.isSigned(by: fabric.rootPublicKey) else {
                throw CASEError.invalid("the initiator's ICAC is not of this fabric's root")
            }
        }
        guard !noc.isCA, noc.isSigned(by: icac?.publicKey ?? fabric.rootPublicKey) else {
            throw CASEError.invalid("the initiator's NOC is not of this fabric's root")
        }
        guard noc.fabricID == fabric.fabricID, let peerNodeID = noc.nodeID, Fabric.isOperational(peerNodeID) else {
            throw CASEError.invalid("the initiator's NOC is of another fabric or has no node id")
        }
        var tbs: [TLVElement] = [TLVElement(.context(1), .bytes(nocBytes))]
        if let icacBytes { tbs.append(TLVElement(.context(2), .bytes(icacBytes))) }
        tbs += [
            TLVElement(.context(3), .bytes(initiatorEphemeralKey)),
            TLVElement(.context(4), .bytes(Array(ephemeralKey.publicKey.x963Representation))),
        ]
        guard let key = try? P256.Signing.PublicKey(x963Representation: noc.publicKey),
            let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(parsed, for: TLVEncoder.encode(.structure(tbs)))
        else { throw CASEError.invalid("the Sigma3 signature does not check out") }
        let keys = SessionKeys(sharedSecret: sharedSecret, salt: ipk + Array(SHA256.hash(data: transcript + bytes)))
        return Established(
            keys: keys, fabric: fabric, peerNodeID: peerNodeID, peerTags: noc.caseAuthenticatedTags, initiatorSessionID: initiatorSessionID,
            initiatorParameters: initiatorParameters,
            resumption: Resumption(
                id: resumptionID, sharedSecret: sharedSecret, fabricIndex: fabric.index, peerNodeID: peerNodeID,
                peerTags: noc.caseAuthenticatedTags))
    }

    /// Sigma1 with a resumption id this node issued and a valid resume MIC: Sigma2Resume and the
    /// resumed session (4.14.2.2.2), or nil to go on with a full CASE.
    static func resume(
        sigma1 bytes: [UInt8], records: [[UInt8]: Resumption], fabrics: [Fabric], responderSessionID: UInt16, parameters: SessionParameters
    ) throws -> (Established, sigma2Resume: [UInt8])? {
        let sigma1 = try Sigma1(bytes)
        guard let id = sigma1.resumptionID, let mic = sigma1.resumeMIC, let record = records[id],
            let fabric = fabrics.first(where: { $0.index == record.fabricIndex })
        else { return nil }
        let s1rk = derive(record.sharedSecret, salt: sigma1.initiatorRandom + id, info: "Sigma1_Resume")
        guard (try? AESCCM.open(mic, key: s1rk, nonce: Array("NCASE_SigmaS1".utf8), authenticating: [])) != nil else { return nil }
        let newID = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let s2rk = derive(record.sharedSecret, salt: sigma1.initiatorRandom + newID, info: "Sigma2_Resume")
        let resumeMIC = try AESCCM.seal([], key: s2rk, nonce: Array("NCASE_SigmaS2".utf8), authenticating: [])
        let message = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes(newID)),
                TLVElement(.context(2), .bytes(resumeMIC)),
                TLVElement(.context(3), .unsigned(UInt64(responderSessionID))),
                TLVElement(.context(4), parameters.tlv),
            ]))
        var renewed = record
        renewed.id = newID
        // Keyed with the resumption id Sigma1 named, not the new one (the SDK's DeriveSecureSession on
        // both sides): with the new one the SDK's controller accepts Sigma2Resume and is then never answered.
        let keys = SessionKeys(sharedSecret: record.sharedSecret, salt: sigma1.initiatorRandom + id, info: "SessionResumptionKeys")
        let established = Established(
            keys: keys, fabric: fabric, peerNodeID: record.peerNodeID, peerTags: record.peerTags,
            initiatorSessionID: sigma1.initiatorSessionID,
            initiatorParameters: sigma1.parameters ?? SessionParameters(), resumption: renewed)
        return (established, message)
    }

    static func derive(_ secret: [UInt8], salt: [UInt8], info: String) -> [UInt8] {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: Array(info.utf8), outputByteCount: 16)
            .withUnsafeBytes { Array($0) }
    }
}

/// Why a CASE exchange ended: no fabric the initiator names (NoSharedTrustRoots), or a bad message.
enum CASEError: Error, Sendable {
    case noSharedRoot
    case invalid(String)
}
