import Crypto
import Synchronization
import Testing

@testable import Matter

/// CASE as an initiator (a controller of the fabric) runs it against the node's message layer,
/// written from the specification (4.14.2) apart from the responder's code.
struct CASEInitiator {
    let key = P256.Signing.PrivateKey()
    let ephemeral = P256.KeyAgreement.PrivateKey()
    let random = (0..<32).map { _ in UInt8.random(in: 0...255) }
    let noc: [UInt8]
    let fabric: Fabric
    var counter: UInt32 = 500

    init(authority: TestFabricAuthority, nodeID: UInt64, fabric: Fabric) throws {
        noc = try authority.noc(nodeID: nodeID, for: key.publicKey)
        self.fabric = fabric
    }

    static func hkdf(_ secret: [UInt8], salt: [UInt8], info: String, length: Int = 16) -> [UInt8] {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: Array(info.utf8), outputByteCount: length)
            .withUnsafeBytes { Array($0) }
    }

    var ipk: [UInt8] { Self.hkdf(fabric.ipkEpochKey, salt: fabric.compressedFabricID, info: "GroupKey v1.0") }

    func sigma1(destinationNodeID: UInt64? = nil, resumption: (id: [UInt8], mic: [UInt8])? = nil) -> [UInt8] {
        var message = random + fabric.rootPublicKey
        message += withUnsafeBytes(of: fabric.fabricID.littleEndian) { Array($0) }
        message += withUnsafeBytes(of: (destinationNodeID ?? fabric.nodeID).littleEndian) { Array($0) }
        let destination = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: ipk)))
        var fields = [
            TLVElement(.context(1), .bytes(random)), TLVElement(.context(2), .unsigned(0x4321)),
            TLVElement(.context(3), .bytes(destination)),
            TLVElement(.context(4), .bytes(Array(ephemeral.publicKey.x963Representation))),
        ]
        if let resumption { fields += [TLVElement(.context(6), .bytes(resumption.id)), TLVElement(.context(7), .bytes(resumption.mic))] }
        return TLVEncoder.encode(.structure(fields))
    }

    mutating func send(
        _ opcode: SecureChannelOpcode, _ payload: [UInt8], to dispatcher: inout MessageDispatcher<String>
    ) throws -> (UInt8, [UInt8]) {
        counter += 1
        let datagram =
            MessageHeader(sessionID: 0, messageCounter: counter, sourceNodeID: 0x0A0B).encoded()
            + ProtocolHeader(
                isInitiator: true, needsAcknowledgement: true, opcode: opcode.rawValue, exchangeID: 11, protocolID: .secureChannel
            ).encoded()
            + payload
        let replies = dispatcher.receive(datagram, from: "controller", now: .now)
        try #require(replies.count == 1)
        let (_, length) = try MessageHeader.decode(replies[0].datagram)
        let (header, reply) = try ProtocolHeader.decode(Array(replies[0].datagram[length...]))
        return (header.opcode, reply)
    }
}

@Suite("Matter CASE")
struct CASETests {
    /// A node commissioned into a test fabric, and a dispatcher answering CASE for its fabrics.
    static func commissionedNode() throws -> (Commissioning, TestFabricAuthority, MessageDispatcher<String>) {
        var commissioner = try Commissioning()
        let authority = try TestFabricAuthority()
        _ = try commissioner.addNOC(authority: authority, nodeID: 0x1234, adminSubject: 0x0001_B669)
        var dispatcher = try Commissioner.makeDispatcher()
        let node = commissioner.node
        dispatcher.fabrics = { node.fabrics }
        return (commissioner, authority, dispatcher)
    }

    @Test("Sigma1 → Sigma2 → Sigma3 gives a session keyed as the initiator derives it, for its node id on the fabric; then it resumes")
    func fullHandshakeAndResumption() throws {
        var (commissioner, authority, dispatcher) = try Self.commissionedNode()
        let fabric = try #require(commissioner.node.fabrics.first)
        var initiator = try CASEInitiator(authority: authority, nodeID: 0x0001_B669, fabric: fabric)
        let sigma1 = initiator.sigma1()
        let (opcode, sigma2) = try initiator.send(.sigma1, sigma1, to: &dispatcher)
        #expect(opcode == SecureChannelOpcode.sigma2.rawValue)
        let fields = try TLVDecoder.decode(sigma2).value
        let responderRandom = try fields.bytesField(1, "responderRandom", length: 32...32)
        let responderSession = try fields.field(2, "responderSessionId", as: UInt16.self)
        let responderEphemeral = try fields.bytesField(3, "responderEphPubKey", length: 65...65)
        let shared = try initiator.ephemeral.sharedSecretFromKeyAgreement(
            with: try P256.KeyAgreement.PublicKey(x963Representation: responderEphemeral)
        )
        .withUnsafeBytes { Array($0) }
        let s2k = CASEInitiator.hkdf(
            shared, salt: initiator.ipk + responderRandom + responderEphemeral + Array(SHA256.hash(data: sigma1)), info: "Sigma2")
        let tbe2 = try TLVDecoder.decode(
            try AESCCM.open(
                try fields.bytesField(4, "encrypted2", length: 17...1200), key: s2k, nonce: Array("NCASE_Sigma2N".utf8), authenticating: [])
        ).value
        #expect(tbe2[context: 1] == .bytes(fabric.noc))
        let tbs2 = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes(fabric.noc)), TLVElement(.context(3), .bytes(responderEphemeral)),
                TLVElement(.context(4), .bytes(Array(initiator.ephemeral.publicKey.x963Representation))),
            ]))
        let responderSignature = try P256.Signing.ECDSASignature(rawRepresentation: try tbe2.bytesField(3, "signature", length: 64...64))
        let responderKey = try P256.Signing.PublicKey(x963Representation: try MatterCertificate(tlv: fabric.noc).publicKey)
        #expect(responderKey.isValidSignature(responderSignature, for: tbs2))
        let resumptionID = try tbe2.bytesField(4, "resumptionID", length: 16...16)

        let tbs3 = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes(initiator.noc)),
                TLVElement(.context(3), .bytes(Array(initiator.ephemeral.publicKey.x963Representation))),
                TLVElement(.context(4), .bytes(responderEphemeral)),
            ]))
        let signature = Array(try initiator.key.signature(for: tbs3).rawRepresentation)
        let s3k = CASEInitiator.hkdf(shared, salt: initiator.ipk + Array(SHA256.hash(data: sigma1 + sigma2)), info: "Sigma3")
        let tbe3 = TLVEncoder.encode(
            .structure([TLVElement(.context(1), .bytes(initiator.noc)), TLVElement(.context(3), .bytes(signature))]))
        let sigma3 = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes(try AESCCM.seal(tbe3, key: s3k, nonce: Array("NCASE_Sigma3N".utf8), authenticating: [])))
            ]))
        let (statusOpcode, status) = try initiator.send(.sigma3, sigma3, to: &dispatcher)
        #expect(statusOpcode == SecureChannelOpcode.statusReport.rawValue)
        #expect(try StatusReport.decode(status) == StatusReport(.success, code: .sessionEstablishmentSuccess))
        let session = try #require(dispatcher.sessions[responderSession])
        let keys = CASEInitiator.hkdf(
            shared, salt: initiator.ipk + Array(SHA256.hash(data: sigma1 + sigma2 + sigma3)), info: "SessionKeys", length: 48)
        #expect(session.keys.initiatorToResponder == Array(keys[0..<16]))
        #expect(session.keys.responderToInitiator == Array(keys[16..<32]))
        #expect(session.subject == .caseSession(fabricIndex: 1, nodeID: 0x0001_B669, tags: []))
        #expect(session.localNodeID == 0x1234 && session.peerNodeID == 0x0001_B669)

        // Resumption: a new Sigma1 (a fresh random, the same peer's counters going on) with the id
        // from Sigma2 and a MIC over it.
        var resumer = try CASEInitiator(authority: authority, nodeID: 0x0001_B669, fabric: fabric)
        resumer.counter = initiator.counter + 10
        let fresh = resumer
        let s1rk = CASEInitiator.hkdf(shared, salt: fresh.random + resumptionID, info: "Sigma1_Resume")
        let mic = try AESCCM.seal([], key: s1rk, nonce: Array("NCASE_SigmaS1".utf8), authenticating: [])
        let (resumeOpcode, sigma2Resume) = try resumer.send(.sigma1, fresh.sigma1(resumption: (resumptionID, mic)), to: &dispatcher)
        #expect(resumeOpcode == SecureChannelOpcode.sigma2Resume.rawValue)
        let resumeFields = try TLVDecoder.decode(sigma2Resume).value
        let newID = try resumeFields.bytesField(1, "resumptionID", length: 16...16)
        let s2rk = CASEInitiator.hkdf(shared, salt: fresh.random + newID, info: "Sigma2_Resume")
        #expect(
            try resumeFields.bytesField(2, "sigma2ResumeMIC", length: 16...16)
                == (try AESCCM.seal([], key: s2rk, nonce: Array("NCASE_SigmaS2".utf8), authenticating: [])))
        let resumed = try #require(dispatcher.sessions[try resumeFields.field(3, "responderSessionID", as: UInt16.self)])
        #expect(resumed.subject == .caseSession(fabricIndex: 1, nodeID: 0x0001_B669, tags: []))
        // The resumed session's keys come from the resumption id Sigma1 named, as the SDK derives them.
        #expect(resumed.keys == SessionKeys(sharedSecret: shared, salt: fresh.random + resumptionID, info: "SessionResumptionKeys"))
    }

    @Test("a Sigma1 naming no fabric of the node gets NoSharedTrustRoots; a Sigma3 from another root is refused")
    func refusals() throws {
        var (commissioner, authority, dispatcher) = try Self.commissionedNode()
        let fabric = try #require(commissioner.node.fabrics.first)
        var initiator = try CASEInitiator(authority: authority, nodeID: 0x0001_B669, fabric: fabric)
        let (opcode, status) = try initiator.send(.sigma1, initiator.sigma1(destinationNodeID: 0x9999), to: &dispatcher)
        #expect(opcode == SecureChannelOpcode.statusReport.rawValue)
        #expect(try StatusReport.decode(status) == StatusReport(.failure, code: .noSharedTrustRoots))
        let (_, sigma2) = try initiator.send(.sigma1, initiator.sigma1(), to: &dispatcher)
        #expect(!sigma2.isEmpty)
        let (refusedOpcode, refused) = try initiator.send(
            .sigma3, TLVEncoder.encode(.structure([TLVElement(.context(1), .bytes([UInt8](repeating: 0, count: 100)))])), to: &dispatcher)
        #expect(refusedOpcode == SecureChannelOpcode.statusReport.rawValue)
        #expect(try StatusReport.decode(refused) == StatusReport(.failure, code: .invalidParameter))
        _ = commissioner
    }

    @Test("the node's state survives a restart: fabrics with their keys, the ACL and NodeLabel; a fabric under a fail-safe does not")
    func persistence() throws {
        var (commissioner, _, _) = try Self.commissionedNode()
        let kept = commissioner.node.state.withLock { $0.persistentState() }
        #expect(try TLVDecoder.decode(kept).value[context: 1] == .array([]))  // still under the fail-safe: not kept
        let admin = Subject.caseSession(fabricIndex: 1, nodeID: 0x0001_B669, tags: [])
        _ = try commissioner.invoke(0x30, 0x04, [], as: admin)  // CommissioningComplete
        let stored = commissioner.node.state.withLock { $0.persistentState() }
        let restarted = MatterNode(model: commissioner.node.model, attestation: nil)
        try restarted.restore(stored)
        #expect(restarted.fabrics.map(\.nodeID) == [0x1234])
        #expect(
            restarted.fabrics.first?.operationalKey.rawRepresentation == commissioner.node.fabrics.first?.operationalKey.rawRepresentation)
        #expect(restarted.state.withLock { $0.acl } == commissioner.node.state.withLock { $0.acl })
        #expect(throws: MatterError.self) { try MatterNode(model: commissioner.node.model, attestation: nil).restore([0x15, 0x36, 0x01]) }
    }
}
