import Crypto
import Synchronization
import Testing

@testable import Matter

/// The commissioning clusters driven as a commissioner drives them, through the node's Interaction Model.
struct Commissioning {
    let node: MatterNode
    let start = ContinuousClock.now
    var exchange: UInt16 = 1

    init() throws {
        let key = P256.Signing.PrivateKey()
        let attestation = try DeviceAttestation.test(
            dacKey: key, dac: try DeviceAttestation.issueTestDAC(for: key.publicKey, notBefore: 1_790_000_000), deviceType: 0x16)
        let model = DataModel(endpoints: [0: [0x28: DataModel.Cluster(attributes: [5: .utf8(""), 2: .unsigned(0xFFF1)])]])
        node = MatterNode(model: model, attestation: attestation)
    }

    func session(_ subject: Subject, at offset: Duration = .zero) -> SessionContext {
        SessionContext(sessionID: 1, subject: subject, attestationChallenge: [UInt8](repeating: 3, count: 16), now: start + offset)
    }

    /// Invokes one command; the response command's fields, or the status.
    mutating func invoke(
        _ cluster: UInt32, _ command: UInt32, _ fields: [TLVElement], as subject: Subject = .pase, at offset: Duration = .zero
    ) throws -> (command: UInt32?, fields: TLVValue?, status: UInt64?) {
        exchange += 1
        let request = TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .bool(false)), TLVElement(.context(1), .bool(false)),
                TLVElement(
                    .context(2),
                    .array([
                        TLVElement(
                            .structure([
                                TLVElement(.context(0), CommandPath(endpoint: 0, cluster: cluster, command: command).tlv),
                                TLVElement(.context(1), .structure(fields)),
                            ]))
                    ])),
            ]))
        let header = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, opcode: 0x08, exchangeID: exchange, protocolID: .interactionModel)
        let reply = try #require(node.respond(to: header, payload: request, session: session(subject, at: offset)))
        #expect(reply.opcode == InteractionOpcode.invokeResponse.rawValue)
        let response = try #require(try TLVDecoder.decode(reply.payload).value[context: 1]?.members?.first?.value)
        if let data = response[context: 0] {
            return (try data[context: 0].map { try $0.field(2, "Command", as: UInt32.self) }, data[context: 1], nil)
        }
        return (nil, nil, response[context: 1]?[context: 1]?[context: 0]?.unsignedValue)
    }

    /// ArmFailSafe, CSRRequest, AddTrustedRootCertificate and AddNOC over PASE; the NOCResponse's fields.
    mutating func addNOC(authority: TestFabricAuthority, nodeID: UInt64, adminSubject: UInt64) throws -> TLVValue {
        #expect(
            try invoke(0x30, 0x00, [TLVElement(.context(0), .unsigned(60)), TLVElement(.context(1), .unsigned(1))]).fields?[context: 0]
                == .unsigned(0))
        let csrResponse = try #require(try invoke(0x3E, 0x04, [TLVElement(.context(0), .bytes([UInt8](repeating: 1, count: 32)))]).fields)
        let csr = try #require(
            try TLVDecoder.decode(try csrResponse.bytesField(0, "NOCSRElements", length: 1...900)).value[context: 1]?.bytesValue)
        let keyStart = try #require(csr.firstRange(of: [0x03, 0x42, 0x00, 0x04])).lowerBound + 3
        let operationalKey = try P256.Signing.PublicKey(x963Representation: csr[keyStart..<(keyStart + 65)])
        #expect(try invoke(0x3E, 0x0B, [TLVElement(.context(0), .bytes(authority.root))]).status == 0)
        let noc = try authority.noc(nodeID: nodeID, for: operationalKey)
        return try #require(
            try invoke(
                0x3E, 0x06,
                [
                    TLVElement(.context(0), .bytes(noc)), TLVElement(.context(2), .bytes([UInt8](repeating: 4, count: 16))),
                    TLVElement(.context(3), .unsigned(adminSubject)), TLVElement(.context(4), .unsigned(0xFFF1)),
                ]
            ).fields)
    }
}

@Suite("Matter commissioning clusters")
struct CommissioningTests {
    @Test("AddNOC after attestation and a CSR adds the fabric and its administrator; CommissioningComplete must come over CASE")
    func commissions() throws {
        var commissioner = try Commissioning()
        let authority = try TestFabricAuthority()
        let response = try commissioner.addNOC(authority: authority, nodeID: 0x1234, adminSubject: 0x0001_B669)
        #expect(response[context: 0] == .unsigned(0))
        #expect(response[context: 1] == .unsigned(1))
        let fabric = try #require(commissioner.node.fabrics.first)
        #expect(fabric.nodeID == 0x1234 && fabric.fabricID == 1)
        #expect(
            commissioner.node.state.withLock { $0.acl } == [
                AccessControlEntry(fabricIndex: 1, privilege: .administer, authMode: .case, subjects: [0x0001_B669], targets: nil)
            ])
        #expect(try commissioner.invoke(0x30, 0x04, []).fields?[context: 0] == .unsigned(2))  // over PASE: InvalidAuthentication
        let admin = Subject.caseSession(fabricIndex: 1, nodeID: 0x0001_B669, tags: [])
        #expect(try commissioner.invoke(0x30, 0x04, [], as: admin).fields?[context: 0] == .unsigned(0))
        #expect(commissioner.node.state.withLock { $0.failSafe == nil })
        commissioner.node.tick(now: commissioner.start + .seconds(120))
        #expect(commissioner.node.fabrics.count == 1)  // committed: the fail-safe's end no longer undoes it
    }

    @Test("the fail-safe's expiry removes the fabric AddNOC added and its ACL entry")
    func failSafeRollsBack() throws {
        var commissioner = try Commissioning()
        _ = try commissioner.addNOC(authority: try TestFabricAuthority(), nodeID: 0x1234, adminSubject: 0x0001_B669)
        commissioner.node.tick(now: commissioner.start + .seconds(59))
        #expect(commissioner.node.fabrics.count == 1)
        commissioner.node.tick(now: commissioner.start + .seconds(61))
        #expect(commissioner.node.fabrics.isEmpty)
        #expect(commissioner.node.state.withLock { $0.acl.isEmpty && $0.pendingRoot == nil && $0.breadcrumb == 0 })
    }

    @Test("a NOC for another key than the CSR's, or a bad chain, is refused")
    func refusesForeignNOC() throws {
        var commissioner = try Commissioning()
        let authority = try TestFabricAuthority()
        #expect(
            try commissioner.invoke(0x30, 0x00, [TLVElement(.context(0), .unsigned(60)), TLVElement(.context(1), .unsigned(0))]).fields
                != nil)
        _ = try commissioner.invoke(0x3E, 0x04, [TLVElement(.context(0), .bytes([UInt8](repeating: 1, count: 32)))])
        #expect(try commissioner.invoke(0x3E, 0x0B, [TLVElement(.context(0), .bytes(authority.root))]).status == 0)
        let foreign = try authority.noc(nodeID: 5, for: P256.Signing.PrivateKey().publicKey)
        let refused = try commissioner.invoke(
            0x3E, 0x06,
            [
                TLVElement(.context(0), .bytes(foreign)), TLVElement(.context(2), .bytes([UInt8](repeating: 4, count: 16))),
                TLVElement(.context(3), .unsigned(7)), TLVElement(.context(4), .unsigned(0xFFF1)),
            ])
        #expect(refused.fields?[context: 0] == .unsigned(1))  // InvalidPublicKey
        #expect(commissioner.node.fabrics.isEmpty)
    }

    @Test("access control: only the administrator reads and writes the ACL; others are refused")
    func enforcesACL() throws {
        var commissioner = try Commissioning()
        _ = try commissioner.addNOC(authority: try TestFabricAuthority(), nodeID: 0x1234, adminSubject: 0x0001_B669)
        let admin = Subject.caseSession(fabricIndex: 1, nodeID: 0x0001_B669, tags: [])
        let stranger = Subject.caseSession(fabricIndex: 1, nodeID: 0x0002_0000, tags: [])
        func write(_ subject: Subject, _ entries: [AccessControlEntry]) throws -> UInt64? {
            let request = TLVEncoder.encode(
                .structure([
                    TLVElement(
                        .context(2),
                        .array([
                            TLVElement(
                                .structure([
                                    TLVElement(.context(1), AttributePath(endpoint: 0, cluster: 0x1F, attribute: 0).tlv),
                                    TLVElement(.context(2), .array(entries.map { TLVElement($0.tlv) })),
                                ]))
                        ]))
                ]))
            let header = ProtocolHeader(
                isInitiator: true, needsAcknowledgement: true, opcode: 0x06, exchangeID: 99, protocolID: .interactionModel)
            let reply = try #require(commissioner.node.respond(to: header, payload: request, session: commissioner.session(subject)))
            return try TLVDecoder.decode(reply.payload).value[context: 0]?.members?.first?.value[context: 1]?[context: 0]?.unsignedValue
        }
        let viewer = AccessControlEntry(fabricIndex: 1, privilege: .view, authMode: .case, subjects: [0x0002_0000], targets: nil)
        let adminEntry = AccessControlEntry(fabricIndex: 1, privilege: .administer, authMode: .case, subjects: [0x0001_B669], targets: nil)
        #expect(try write(stranger, [viewer]) == 0x7E)  // UNSUPPORTED_ACCESS
        #expect(try write(admin, [adminEntry, viewer]) == 0)
        #expect(try write(stranger, [viewer]) == 0x7E)  // View does not let it administer
        #expect(try commissioner.invoke(0x3E, 0x0A, [TLVElement(.context(0), .unsigned(1))], as: stranger).status == 0x7E)
        let read = commissioner.node.state.withLock {
            $0.read(
                .init(paths: [AttributePath(endpoint: 0, cluster: 0x1F, attribute: 0)], isFabricFiltered: true),
                session: commissioner.session(stranger))
        }
        #expect(read == [.status(AttributePath(endpoint: 0, cluster: 0x1F, attribute: 0), .unsupportedAccess)])
    }
}
