import Crypto
import Testing

@testable import Matter

/// PASE and the secure session end to end through the device's message layer, with the test prover
/// as the commissioner and time passed in.
struct Commissioner {
    static let salt = [UInt8](repeating: 0x5A, count: 32)
    static let ephemeral: UInt64 = 0x0102_0304_0506_0708
    let start = ContinuousClock.now
    var counter: UInt32 = 1000

    static func makeDispatcher() throws -> MessageDispatcher<String> {
        var dispatcher = MessageDispatcher<String>(verifier: try PASEVerifier(passcode: 20_202_021, salt: salt, iterations: 1000))
        dispatcher.application = { header, payload, _ in (header.opcode + 1, payload.reversed()) }  // an echo, for the session test
        return dispatcher
    }

    /// A commissioner's unsecured message on exchange 7, and what the device answered (header, protocol header, payload).
    mutating func send(
        _ opcode: SecureChannelOpcode, _ payload: [UInt8], to dispatcher: inout MessageDispatcher<String>, at offset: Duration = .zero
    ) throws -> (MessageHeader, ProtocolHeader, [UInt8]) {
        counter += 1
        let datagram =
            MessageHeader(sessionID: 0, messageCounter: counter, sourceNodeID: Self.ephemeral).encoded()
            + ProtocolHeader(
                isInitiator: true, needsAcknowledgement: true, opcode: opcode.rawValue, exchangeID: 7, protocolID: .secureChannel
            ).encoded()
            + payload
        let replies = dispatcher.receive(datagram, from: "controller", now: start + offset)
        try #require(replies.count == 1)
        #expect(replies[0].peer == "controller")
        let (header, length) = try MessageHeader.decode(replies[0].datagram)
        let (protocolHeader, reply) = try ProtocolHeader.decode(Array(replies[0].datagram[length...]))
        return (header, protocolHeader, reply)
    }

    /// Runs PASE up to Pake3 with `passcode`; the device's StatusReport and the prover's keys.
    mutating func pase(
        passcode: UInt32, dispatcher: inout MessageDispatcher<String>
    ) throws -> (StatusReport, responderSession: UInt16, sharedSecret: [UInt8]?) {
        let request = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes([UInt8](repeating: 1, count: 32))), TLVElement(.context(2), .unsigned(0x1234)),
                TLVElement(.context(3), .unsigned(0)), TLVElement(.context(4), .bool(false)),
            ]))
        let (header, protocolHeader, response) = try send(.pbkdfParamRequest, request, to: &dispatcher)
        #expect(header.destination == .node(Self.ephemeral))
        #expect(header.sourceNodeID == nil)
        #expect(protocolHeader.acknowledgedCounter == counter)
        #expect(protocolHeader.opcode == SecureChannelOpcode.pbkdfParamResponse.rawValue)
        #expect(!protocolHeader.isInitiator)
        let fields = try TLVDecoder.decode(response).value
        let pbkdf = try #require(fields[context: 4])
        #expect(pbkdf[context: 2]?.bytesValue == Self.salt)
        let responderSession = try fields.field(3, "responderSessionId", as: UInt16.self)
        let prover = try PASEProver(passcode: passcode, salt: Self.salt, iterations: Int(try pbkdf.field(1, "iterations", as: UInt32.self)))
        let context = Array(SHA256.hash(data: Array("CHIP PAKE V1 Commissioning".utf8) + request + response))

        let (_, _, pake2) = try send(.pake1, TLVEncoder.encode(.structure([TLVElement(.context(1), .bytes(prover.X))])), to: &dispatcher)
        let pake2Fields = try TLVDecoder.decode(pake2).value
        let finished = try prover.finish(
            context: context, Y: try pake2Fields.bytesField(1, "pB", length: 65...65),
            cB: try pake2Fields.bytesField(2, "cB", length: 32...32))
        let cA = finished?.cA ?? [UInt8](repeating: 0, count: 32)  // a wrong passcode: send a confirmation anyway
        let (_, statusHeader, status) = try send(
            .pake3, TLVEncoder.encode(.structure([TLVElement(.context(1), .bytes(cA))])), to: &dispatcher)
        #expect(statusHeader.opcode == SecureChannelOpcode.statusReport.rawValue)
        return (try StatusReport.decode(status), responderSession, finished?.sharedSecret)
    }
}

@Suite("Matter PASE through the message layer")
struct DispatcherTests {

    @Test("PASE with the right passcode ends in success and a secure session")
    func paseSucceeds() throws {
        var commissioner = Commissioner()
        var dispatcher = try Commissioner.makeDispatcher()
        let (status, session, secret) = try commissioner.pase(passcode: 20_202_021, dispatcher: &dispatcher)
        #expect(status == StatusReport(.success, code: .sessionEstablishmentSuccess))
        #expect(secret != nil)
        #expect(dispatcher.sessions[session]?.peerSessionID == 0x1234)
    }

    @Test("PASE with a wrong passcode: the device's cB does not check out, and a made-up cA gets a failure and no session")
    func paseRefusesWrongPasscode() throws {
        var commissioner = Commissioner()
        var dispatcher = try Commissioner.makeDispatcher()
        let (status, _, secret) = try commissioner.pase(passcode: 20_202_022, dispatcher: &dispatcher)
        #expect(secret == nil)
        #expect(status == StatusReport(.failure, code: .invalidParameter))
        #expect(dispatcher.sessions.isEmpty)
    }

    @Test("the secure session decrypts the commissioner's message, encrypts the reply, and only acknowledges a replay")
    func secureSession() throws {
        var commissioner = Commissioner()
        let start = commissioner.start
        var dispatcher = try Commissioner.makeDispatcher()
        let (_, session, secret) = try commissioner.pase(passcode: 20_202_021, dispatcher: &dispatcher)
        let keys = SessionKeys(sharedSecret: try #require(secret))
        let header = MessageHeader(sessionID: session, messageCounter: 55)
        let aad = header.encoded()
        let message = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, opcode: 0x02, exchangeID: 9, protocolID: .interactionModel
        ).encoded()
        let nonce = SecureSession<String>.nonce(securityFlags: 0, counter: 55, sourceNodeID: 0)
        let datagram = aad + (try AESCCM.seal(message + [1, 2, 3], key: keys.initiatorToResponder, nonce: nonce, authenticating: aad))

        for (attempt, expectedOpcode) in [(0, UInt8(0x03)), (1, SecureChannelOpcode.standaloneAck.rawValue)] {
            let replies = dispatcher.receive(datagram, from: "controller", now: start + .seconds(attempt))
            try #require(replies.count == 1)
            let (replyHeader, length) = try MessageHeader.decode(replies[0].datagram)
            #expect(replyHeader.sessionID == 0x1234)
            let plain = try AESCCM.open(
                Array(replies[0].datagram[length...]), key: keys.responderToInitiator,
                nonce: SecureSession<String>.nonce(securityFlags: 0, counter: replyHeader.messageCounter, sourceNodeID: 0),
                authenticating: Array(replies[0].datagram[..<length]))
            let (protocolHeader, payload) = try ProtocolHeader.decode(plain)
            #expect(protocolHeader.opcode == expectedOpcode)
            #expect(protocolHeader.acknowledgedCounter == 55)
            if attempt == 0 { #expect(payload == [3, 2, 1]) }
        }
        var tampered = datagram
        tampered[tampered.count - 1] ^= 1
        #expect(dispatcher.receive(tampered, from: "controller", now: start).isEmpty)
    }

    @Test("an unacknowledged response is sent again by MRP, and not after the acknowledgement")
    func retransmitsUntilAcknowledged() throws {
        var commissioner = Commissioner()
        let start = commissioner.start
        var dispatcher = try Commissioner.makeDispatcher()
        let request = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes([UInt8](repeating: 1, count: 32))), TLVElement(.context(2), .unsigned(1)),
                TLVElement(.context(3), .unsigned(0)), TLVElement(.context(4), .bool(true)),
            ]))
        let (header, _, _) = try commissioner.send(.pbkdfParamRequest, request, to: &dispatcher)
        #expect(dispatcher.tick(now: start + .milliseconds(100)).isEmpty)
        let resent = dispatcher.tick(now: start + .seconds(1))
        #expect(resent.count == 1)
        #expect(try resent.first.map { try MessageHeader.decode($0.datagram).header } == header)
        let ack =
            MessageHeader(sessionID: 0, messageCounter: 5000, sourceNodeID: Commissioner.ephemeral).encoded()
            + ProtocolHeader(
                isInitiator: true, needsAcknowledgement: false, acknowledgedCounter: header.messageCounter,
                opcode: SecureChannelOpcode.standaloneAck.rawValue, exchangeID: 7, protocolID: .secureChannel
            ).encoded()
        #expect(dispatcher.receive(ack, from: "controller", now: start + .seconds(1)).isEmpty)
        #expect(dispatcher.tick(now: start + .seconds(30)).isEmpty)
        #expect(dispatcher.nextDeadline == nil)
    }

    @Test("garbage datagrams are dropped without an answer")
    func dropsGarbage() throws {
        let start = ContinuousClock.now
        var dispatcher = try Commissioner.makeDispatcher()
        for datagram in [[], [0xFF], hex("04 00 00 00 01 00 00 00 01 02 03 04 05 06 07 08"), [UInt8](repeating: 0, count: 100)] {
            #expect(dispatcher.receive(datagram, from: "x", now: start).isEmpty)
        }
    }
}

@Suite("Matter message layer under hostile input")
struct HostileInputTests {
    @Test("thousands of random and mutated datagrams are dropped or answered, never crash, and PASE works afterwards")
    func survivesMutatedDatagrams() throws {
        var dispatcher = try Commissioner.makeDispatcher()
        var generator = SystemRandomNumberGenerator()
        let seed =
            MessageHeader(sessionID: 0, messageCounter: 1, sourceNodeID: 9).encoded()
            + ProtocolHeader(isInitiator: true, needsAcknowledgement: true, opcode: 0x20, exchangeID: 1, protocolID: .secureChannel)
            .encoded()
            + TLVEncoder.encode(.structure([TLVElement(.context(1), .bytes([UInt8](repeating: 1, count: 32)))]))
        let start = ContinuousClock.now
        for round in 0..<5000 {
            var datagram = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                datagram[Int.random(in: 0..<datagram.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 3 == 0 { datagram = Array(datagram.prefix(Int.random(in: 0...datagram.count, using: &generator))) }
            _ = dispatcher.receive(datagram, from: "attacker", now: start)
        }
        #expect(dispatcher.unsecuredWindows.count <= MessageDispatcher<String>.unsecuredPeerLimit)
        var commissioner = Commissioner()
        let (status, _, _) = try commissioner.pase(passcode: 20_202_021, dispatcher: &dispatcher)
        #expect(status.isSuccess)
    }
}

@Suite("Matter PASE among several commissioners")
struct StrangerTests {
    @Test("a stranger's Pake1 or StatusReport does not end another commissioner's PASE")
    func strangerCannotEndPASE() throws {
        var dispatcher = try Commissioner.makeDispatcher()
        let start = ContinuousClock.now
        let request = TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .bytes([UInt8](repeating: 1, count: 32))), TLVElement(.context(2), .unsigned(1)),
                TLVElement(.context(3), .unsigned(0)), TLVElement(.context(4), .bool(false)),
            ]))
        var commissioner = Commissioner()
        _ = try commissioner.send(.pbkdfParamRequest, request, to: &dispatcher)
        for opcode in [SecureChannelOpcode.pake1, .statusReport] {
            let stranger =
                MessageHeader(sessionID: 0, messageCounter: 1, sourceNodeID: 0xBAD).encoded()
                + ProtocolHeader(
                    isInitiator: true, needsAcknowledgement: false, opcode: opcode.rawValue, exchangeID: 7, protocolID: .secureChannel
                ).encoded()
                + TLVEncoder.encode(.structure([TLVElement(.context(1), .bytes([UInt8](repeating: 4, count: 65)))]))
            _ = dispatcher.receive(stranger, from: "stranger", now: start)
        }
        #expect(dispatcher.pase?.initiator.ephemeralNodeID == Commissioner.ephemeral)
    }
}
