import Testing

@testable import Matter

@Suite("Matter Interaction Model reads")
struct InteractionModelTests {
    static let model = DataModel(endpoints: [
        0: [0x28: DataModel.Cluster(attributes: [2: .unsigned(0xFFF1), 3: .utf8("demo")], dataVersion: 7)],
        1: [0x06: DataModel.Cluster(attributes: [0: .bool(true)], dataVersion: 9)],
    ])

    static let session = SessionContext(sessionID: 1, subject: .pase, attestationChallenge: [], now: .now)

    func read(_ paths: [TLVValue]) throws -> TLVValue {
        let request = TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .array(paths.map { TLVElement($0) })), TLVElement(.context(3), .bool(true)),
                TLVElement(.context(0xFF), .unsigned(12)),
            ]))
        let header = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, opcode: 0x02, exchangeID: 1, protocolID: .interactionModel)
        let reply = try #require(
            MatterNode(model: Self.model, attestation: nil).respond(to: header, payload: request, session: Self.session))
        #expect(reply.opcode == InteractionOpcode.reportData.rawValue)
        let report = try TLVDecoder.decode(reply.payload).value
        #expect(report[context: 4] == .bool(true))  // SuppressResponse: a read ends here
        return report
    }

    @Test("a concrete path is answered with its data version, path and value")
    func concretePath() throws {
        let report = try read([
            .list([TLVElement(.context(2), .unsigned(0)), TLVElement(.context(3), .unsigned(0x28)), TLVElement(.context(4), .unsigned(2))])
        ])
        let data = try #require(report[context: 1]?.members?.first?.value[context: 1])
        #expect(data[context: 0] == .unsigned(7))
        #expect(try AttributePath(tlv: try #require(data[context: 1])) == AttributePath(endpoint: 0, cluster: 0x28, attribute: 2))
        #expect(data[context: 2] == .unsigned(0xFFF1))
    }

    @Test("wildcards expand to every attribute that exists")
    func wildcards() {
        #expect(Self.model.read(AttributePath(endpoint: nil, cluster: nil, attribute: nil)).count == 3)
        #expect(Self.model.read(AttributePath(endpoint: 0, cluster: 0x28, attribute: nil)).count == 2)
        #expect(
            Self.model.read(AttributePath(endpoint: nil, cluster: 0x06, attribute: 0)) == [
                .data(AttributePath(endpoint: 1, cluster: 6, attribute: 0), dataVersion: 9, value: .bool(true))
            ])
        #expect(Self.model.read(AttributePath(endpoint: 5, cluster: nil, attribute: nil)).isEmpty)
    }

    @Test("a concrete path that does not exist gets the status that says which part is missing")
    func missingPaths() {
        #expect(
            Self.model.read(AttributePath(endpoint: 5, cluster: 0x28, attribute: 2)) == [
                .status(AttributePath(endpoint: 5, cluster: 0x28, attribute: 2), .unsupportedEndpoint)
            ])
        #expect(
            Self.model.read(AttributePath(endpoint: 0, cluster: 0x06, attribute: 0)) == [
                .status(AttributePath(endpoint: 0, cluster: 6, attribute: 0), .unsupportedCluster)
            ])
        #expect(
            Self.model.read(AttributePath(endpoint: 0, cluster: 0x28, attribute: 9)) == [
                .status(AttributePath(endpoint: 0, cluster: 0x28, attribute: 9), .unsupportedAttribute)
            ])
    }

    @Test("a malformed read, and actions not served yet, get a StatusResponse of INVALID_ACTION")
    func invalidActions() throws {
        let model = MatterNode(model: Self.model, attestation: nil)
        for (opcode, payload) in [(UInt8(0x02), [UInt8](hex("15 24 00"))), (0x02, hex("15 36 00 15 18 18 18")), (0x08, hex("15 18"))] {
            let header = ProtocolHeader(
                isInitiator: true, needsAcknowledgement: true, opcode: opcode, exchangeID: 1, protocolID: .interactionModel)
            let reply = try #require(model.respond(to: header, payload: payload, session: Self.session))
            #expect(reply.opcode == InteractionOpcode.statusResponse.rawValue)
            #expect(try TLVDecoder.decode(reply.payload).value[context: 0] == .unsigned(0x80))
        }
    }

    @Test("a report too large for one message is refused with RESOURCE_EXHAUSTED rather than sent oversized")
    func refusesOversizedReport() throws {
        let big = DataModel(endpoints: [0: [0x28: DataModel.Cluster(attributes: [1: .utf8(String(repeating: "x", count: 1500))])]])
        let request = TLVEncoder.encode(.structure([TLVElement(.context(0), .array([TLVElement(.list([]))]))]))
        let header = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, opcode: 0x02, exchangeID: 1, protocolID: .interactionModel)
        let reply = try #require(MatterNode(model: big, attestation: nil).respond(to: header, payload: request, session: Self.session))
        #expect(reply.opcode == InteractionOpcode.statusResponse.rawValue)
        #expect(try TLVDecoder.decode(reply.payload).value[context: 0] == .unsigned(0x89))
    }

    @Test("a report larger than one message comes in chunks under the limit, each but the last with MoreChunkedMessages")
    func chunks() throws {
        let reports = (0..<60).map { index in
            DataModel.Report.data(
                AttributePath(endpoint: 1, cluster: 0x28, attribute: UInt32(index)), dataVersion: 1,
                value: .utf8(String(repeating: "x", count: 40)))
        }
        let chunks = try #require(InteractionModel.reportChunks(reports, subscriptionID: 7, suppressResponse: false))
        #expect(chunks.count > 1)
        var received: [TLVElement] = []
        for (index, chunk) in chunks.enumerated() {
            #expect(chunk.count <= InteractionModel.maximumReportLength)
            let message = try TLVDecoder.decode(chunk).value
            #expect(message[context: 0] == .unsigned(7))
            #expect(message[context: 3] == (index < chunks.count - 1 ? .bool(true) : nil))
            #expect(message[context: 4] == nil)
            received += message[context: 1]?.members ?? []
        }
        #expect(received.count == 60)
        let read = try #require(InteractionModel.reportChunks(Array(reports.prefix(3)), suppressResponse: true))
        let only = try TLVDecoder.decode(read[0]).value
        #expect(read.count == 1)
        #expect(only[context: 4] == .bool(true))
    }
}
