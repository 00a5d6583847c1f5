import Synchronization
import Testing

@testable import Matter

@Suite("Matter subscriptions and commissioning windows")
struct SubscriptionTests {
    static func request(
        _ node: MatterNode, _ opcode: InteractionOpcode, _ payload: [UInt8], exchange: UInt16, at now: ContinuousClock.Instant
    ) throws -> (
        UInt8, TLVValue
    ) {
        let header = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, opcode: opcode.rawValue, exchangeID: exchange, protocolID: .interactionModel)
        let session = SessionContext(sessionID: 9, subject: .pase, attestationChallenge: [], now: now)
        let reply = try #require(node.respond(to: header, payload: payload, session: session))
        return (reply.opcode, try TLVDecoder.decode(reply.payload).value)
    }

    @Test("priming report, SubscribeResponse after the StatusResponse, a report on change, a keep-alive at the maximum interval")
    func subscription() throws {
        let node = MatterNode(
            model: DataModel(endpoints: [
                1: [0x06: DataModel.Cluster(attributes: [0: .bool(false)])], 2: [0x06: DataModel.Cluster(attributes: [0: .bool(false)])],
            ]),
            attestation: nil)
        let start = ContinuousClock.now
        let subscribe = TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .bool(false)), TLVElement(.context(1), .unsigned(0)), TLVElement(.context(2), .unsigned(10)),
                TLVElement(.context(3), .array([TLVElement(AttributePath(endpoint: 1, cluster: 6, attribute: 0).tlv)])),
            ]))
        let (opcode, priming) = try Self.request(node, .subscribeRequest, subscribe, exchange: 4, at: start)
        #expect(opcode == InteractionOpcode.reportData.rawValue)
        let id = try #require(priming[context: 0]?.unsignedValue)
        #expect(priming[context: 1]?.members?.count == 1)
        let status = TLVEncoder.encode(.structure([TLVElement(.context(0), .unsigned(0))]))
        let (responseOpcode, response) = try Self.request(node, .statusResponse, status, exchange: 4, at: start)
        #expect(responseOpcode == InteractionOpcode.subscribeResponse.rawValue)
        #expect(response[context: 0]?.unsignedValue == id && response[context: 2] == .unsigned(10))

        #expect(node.dueReports(now: start + .seconds(1), liveSessions: [9]).isEmpty)
        node.setAttribute(endpoint: 2, cluster: 6, attribute: 0, to: .bool(true))  // not subscribed
        #expect(node.dueReports(now: start + .seconds(1), liveSessions: [9]).isEmpty)
        node.setAttribute(endpoint: 1, cluster: 6, attribute: 0, to: .bool(true))
        let reports = node.dueReports(now: start + .seconds(2), liveSessions: [9])
        #expect(reports.count == 1 && reports.first?.sessionID == 9)
        let report = try TLVDecoder.decode(try #require(reports.first).payload).value
        #expect(report[context: 0]?.unsignedValue == id)
        #expect(report[context: 1]?.members?.first?.value[context: 1]?[context: 2] == .bool(true))
        #expect(node.dueReports(now: start + .seconds(11), liveSessions: [9]).isEmpty)  // the last report was at 2 s
        let keepAlive = node.dueReports(now: start + .seconds(13), liveSessions: [9])
        #expect(keepAlive.count == 1)
        #expect(try TLVDecoder.decode(keepAlive[0].payload).value[context: 1] == nil)
        #expect(node.dueReports(now: start + .seconds(30), liveSessions: []).isEmpty)  // its session ended
        #expect(node.dueReports(now: start + .seconds(60), liveSessions: [9]).isEmpty)  // and so did it
    }

    @Test("values set together are reported together, and an attribute new to a cluster joins its AttributeList")
    func batch() throws {
        // A colour light's ColorControl: CurrentHue and ColorMode change together.
        let node = MatterNode(
            model: DataModel(endpoints: [1: [0x0300: DataModel.Cluster(attributes: [0x0000: .unsigned(0), 0x0008: .unsigned(2)])]]),
            attestation: nil)
        let start = ContinuousClock.now
        let paths = [0x0000, 0x0008].map { TLVElement(AttributePath(endpoint: 1, cluster: 0x0300, attribute: $0).tlv) }
        let subscribe = TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .bool(false)), TLVElement(.context(1), .unsigned(0)), TLVElement(.context(2), .unsigned(60)),
                TLVElement(.context(3), .array(paths)),
            ]))
        _ = try Self.request(node, .subscribeRequest, subscribe, exchange: 4, at: start)
        _ = try Self.request(
            node, .statusResponse, TLVEncoder.encode(.structure([TLVElement(.context(0), .unsigned(0))])), exchange: 4, at: start)
        let version = try #require(node.model.endpoints[1]?[0x0300]?.dataVersion)

        node.setAttributes([(1, 0x0300, 0x0000, .unsigned(120)), (1, 0x0300, 0x0008, .unsigned(0))])
        let reports = node.dueReports(now: start + .seconds(1), liveSessions: [9])
        #expect(reports.count == 1)
        let report = try TLVDecoder.decode(try #require(reports.first).payload).value
        let values = report[context: 1]?.members?.compactMap { $0.value[context: 1]?[context: 2] } ?? []
        #expect(values.count == 2 && values.contains(.unsigned(120)) && values.contains(.unsigned(0)))
        #expect(node.model.endpoints[1]?[0x0300]?.dataVersion == version &+ 2)
        #expect(node.dueReports(now: start + .seconds(2), liveSessions: [9]).isEmpty)

        // CurrentX, which the cluster did not have: it is set, and listed.
        node.setAttributes([(1, 0x0300, 0x0003, .unsigned(24939))])
        let cluster = try #require(node.model.endpoints[1]?[0x0300])
        #expect(cluster.attributes[0x0003] == .unsigned(24939))
        let listed = cluster.attributes[0xFFFB]?.members?.map(\.value)
        #expect(listed == [0x0000, 0x0003, 0x0008, 0xFFF8, 0xFFF9, 0xFFFB].map { .unsigned($0) })
    }

    @Test("an administrator's window: timed only, a new verifier for PASE until it expires, Busy when one is open")
    func commissioningWindow() throws {
        var commissioner = try Commissioning()
        _ = try commissioner.addNOC(authority: try TestFabricAuthority(), nodeID: 0x1234, adminSubject: 0x0001_B669)
        let admin = Subject.caseSession(fabricIndex: 1, nodeID: 0x0001_B669, tags: [])
        _ = try commissioner.invoke(0x30, 0x04, [], as: admin)
        let setup = try PASEVerifier(passcode: 20_202_021, salt: [UInt8](repeating: 1, count: 16), iterations: 1000)
        #expect(commissioner.node.commissioningVerifier(default: setup) == nil)  // commissioned: no PASE without a window

        let window = try PASEVerifier(passcode: 34_567_890, salt: [UInt8](repeating: 2, count: 16), iterations: 2000)
        let fields: TLVValue = .structure([
            TLVElement(.context(0), .unsigned(180)), TLVElement(.context(1), .bytes(window.w0 + window.L)),
            TLVElement(.context(2), .unsigned(99)),
            TLVElement(.context(3), .unsigned(2000)), TLVElement(.context(4), .bytes(window.salt)),
        ])
        let path = CommandPath(endpoint: 0, cluster: 0x3C, command: 0)
        let session = commissioner.session(admin)
        #expect(
            commissioner.node.state.withLock { $0.invoke(path, fields: fields, session: session, isTimed: false) }
                == .status(.needsTimedInteraction))
        #expect(commissioner.node.state.withLock { $0.invoke(path, fields: fields, session: session, isTimed: true) } == .success)
        #expect(commissioner.node.commissioningVerifier(default: setup) == window)
        #expect(commissioner.node.advertising.openWindow == 99)
        #expect(
            commissioner.node.state.withLock { $0.invoke(path, fields: fields, session: session, isTimed: true) }
                == .status(.failure, cluster: 2))
        commissioner.node.tick(now: commissioner.start + .seconds(181))
        #expect(commissioner.node.commissioningVerifier(default: setup) == nil)
        #expect(commissioner.node.advertising.openWindow == nil)
    }

    @Test("events: numbered in order, read by path and EventMin, reported to a subscription, numbers growing across a restart")
    func events() throws {
        let node = MatterNode(model: DataModel(endpoints: [0: [0x28: DataModel.Cluster(attributes: [5: .utf8("")])]]), attestation: nil)
        node.emitEvent(endpoint: 0, cluster: 0x28, event: 0, priority: .critical, fields: [TLVElement(.context(0), .unsigned(1))])
        node.emitEvent(endpoint: 0, cluster: 0x28, event: 1, priority: .critical, fields: [])
        let start = ContinuousClock.now
        func readEvents(_ path: EventPath, minimum: UInt64 = 0) throws -> [TLVValue] {
            var fields = [
                TLVElement(.context(1), .unsigned(UInt64(path.endpoint ?? 0))),
                TLVElement(.context(2), .unsigned(UInt64(path.cluster ?? 0))),
            ]
            if let event = path.event { fields.append(TLVElement(.context(3), .unsigned(UInt64(event)))) }
            let request = TLVEncoder.encode(
                .structure([
                    TLVElement(.context(1), .array([TLVElement(.list(fields))])),
                    TLVElement(.context(2), .array([TLVElement(.structure([TLVElement(.context(1), .unsigned(minimum))]))])),
                ]))
            let (_, report) = try Self.request(node, .readRequest, request, exchange: 1, at: start)
            return (report[context: 2]?.members ?? []).compactMap { $0.value[context: 1] }
        }
        let all = try readEvents(EventPath(endpoint: 0, cluster: 0x28, event: nil))
        #expect(all.compactMap { $0[context: 1]?.unsignedValue } == [1, 2])
        #expect(all.first?[context: 7]?[context: 0] == .unsigned(1))
        #expect(try readEvents(EventPath(endpoint: 0, cluster: 0x28, event: 1)).count == 1)
        #expect(try readEvents(EventPath(endpoint: 0, cluster: 0x28, event: nil), minimum: 2).count == 1)

        let subscribe = TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .bool(false)), TLVElement(.context(1), .unsigned(0)), TLVElement(.context(2), .unsigned(60)),
                TLVElement(.context(4), .array([TLVElement(.list([TLVElement(.context(2), .unsigned(0x28))]))])),
            ]))
        let (_, priming) = try Self.request(node, .subscribeRequest, subscribe, exchange: 2, at: start)
        #expect(priming[context: 2]?.members?.count == 2)
        _ = try Self.request(
            node, .statusResponse, TLVEncoder.encode(.structure([TLVElement(.context(0), .unsigned(0))])), exchange: 2, at: start)
        #expect(node.dueReports(now: start, liveSessions: [9]).isEmpty)
        node.emitEvent(endpoint: 0, cluster: 0x28, event: 1, priority: .critical, fields: [])
        let report = try TLVDecoder.decode(try #require(node.dueReports(now: start, liveSessions: [9]).first).payload).value
        #expect(report[context: 2]?.members?.compactMap { $0.value[context: 1]?[context: 1]?.unsignedValue } == [3])

        let restarted = MatterNode(model: node.model, attestation: nil)
        try restarted.restore(node.state.withLock { $0.persistentState() })
        restarted.emitEvent(endpoint: 0, cluster: 0x28, event: 0, priority: .critical, fields: [])
        #expect(restarted.state.withLock { $0.events.map(\.number) } == [4])
    }
}
