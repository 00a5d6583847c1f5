public import Logging

/// Answers a request of another protocol than the Secure Channel on a secure session: the reply's
/// opcode and payload, or nil for none (the request is then acknowledged only).
public typealias MatterApplication = @Sendable (ProtocolHeader, [UInt8], SessionContext) -> (opcode: UInt8, payload: [UInt8])?

/// The secure session a request arrived on, as the application sees it.
public struct SessionContext: Sendable {
    public var sessionID: UInt16
    public var subject: Subject
    /// The session's attestation challenge: what attestation and CSR elements are signed over.
    public var attestationChallenge: [UInt8]
    public var now: ContinuousClock.Instant

    public init(sessionID: UInt16, subject: Subject, attestationChallenge: [UInt8], now: ContinuousClock.Instant) {
        self.sessionID = sessionID
        self.subject = subject
        self.attestationChallenge = attestationChallenge
        self.now = now
    }
}

/// A datagram to send and where.
public struct Outgoing<Peer: Sendable>: Sendable {
    public var datagram: [UInt8]
    public var peer: Peer
}

/// The device's message layer without I/O: datagrams in, datagrams out, time as an argument. It
/// owns the unsecured session (session establishment), the secure sessions PASE makes, the
/// counters and their reception windows, and MRP (acknowledgements and retransmissions).
public struct MessageDispatcher<Peer: Hashable & Sendable>: Sendable {
    struct UnsecuredPeer: Hashable { var peer: Peer; var ephemeralNodeID: UInt64 }
    struct PendingPASE { var responder: PASEResponder; var initiator: UnsecuredPeer; var exchangeID: UInt16 }
    struct PendingCASE { var responder: CASEResponder; var exchangeID: UInt16 }

    /// How many commissioners' unsecured counters are remembered (each a few bytes).
    static var unsecuredPeerLimit: Int { 256 }
    static var pendingCASELimit: Int { 16 }
    static var resumptionLimit: Int { 64 }

    public var verifier: PASEVerifier
    /// The verifier PASE answers with now, from the device's own (`verifier`): nil when no
    /// commissioning window is open (the node's: an enhanced window's verifier, or its own while on no fabric).
    public var commissioningVerifier: @Sendable (PASEVerifier) -> PASEVerifier? = { $0 }
    public var parameters = SessionParameters()
    public var application: MatterApplication?
    public private(set) var sessions: [UInt16: SecureSession<Peer>] = [:]
    var unsecuredCounter = MessageCounter()
    var unsecuredWindows: [UnsecuredPeer: ReceptionWindow] = [:]
    var pase: PendingPASE?
    var nextExchangeID = UInt16.random(in: 0...UInt16.max)
    var pendingCASE: [UnsecuredPeer: PendingCASE] = [:]
    var resumptions: [[UInt8]: CASEResponder.Resumption] = [:]
    /// The fabrics CASE answers for (the node's, once commissioned).
    public var fabrics: @Sendable () -> [Fabric] = { [] }
    var retransmissions = RetransmissionTable<Peer>()
    let logger: Logger

    public init(verifier: PASEVerifier, logger: Logger = Logger(label: "matter")) {
        self.verifier = verifier
        self.logger = logger
    }

    /// Handles one datagram; what to send in reply. A malformed or unauthentic datagram is dropped.
    public mutating func receive(_ datagram: [UInt8], from peer: Peer, now: ContinuousClock.Instant) -> [Outgoing<Peer>] {
        do {
            let (header, length) = try MessageHeader.decode(datagram)
            if header.isUnsecured {
                return try receiveUnsecured(datagram, header: header, length: length, from: peer, now: now)
            }
            return try receiveSecure(datagram, header: header, length: length, from: peer, now: now)
        } catch {
            logger.debug("dropped a datagram", metadata: ["reason": "\(error)"])
            return []
        }
    }

    /// The retransmissions due at `now` (MRP).
    public mutating func tick(now: ContinuousClock.Instant) -> [Outgoing<Peer>] {
        let (resend, expired) = retransmissions.due(now: now)
        for key in expired {
            logger.debug(
                "no acknowledgement after the last retransmission", metadata: ["session": "\(key.session)", "counter": "\(key.counter)"])
        }
        return resend.map { Outgoing(datagram: $0.datagram, peer: $0.peer) }
    }

    public var nextDeadline: ContinuousClock.Instant? { retransmissions.nextDeadline }

    private mutating func receiveUnsecured(
        _ datagram: [UInt8], header: MessageHeader, length: Int, from peer: Peer, now: ContinuousClock.Instant
    ) throws -> [Outgoing<Peer>] {
        guard let ephemeral = header.sourceNodeID else {
            throw MatterError.malformedMessage("an unsecured request without a source node id")
        }
        let initiator = UnsecuredPeer(peer: peer, ephemeralNodeID: ephemeral)
        let (protocolHeader, payload) = try ProtocolHeader.decode(Array(datagram[length...]))
        if let acknowledged = protocolHeader.acknowledgedCounter { retransmissions.acknowledged(.init(session: 0, counter: acknowledged)) }
        if unsecuredWindows[initiator] == nil, unsecuredWindows.count >= Self.unsecuredPeerLimit {
            unsecuredWindows.removeAll()  // a flood of made-up source node ids must not grow memory without end
        }
        var window = unsecuredWindows[initiator] ?? ReceptionWindow(allowsRollover: true)
        let verdict = window.receive(header.messageCounter)
        unsecuredWindows[initiator] = window
        let ack = protocolHeader.needsAcknowledgement ? header.messageCounter : nil
        guard verdict == .new else {
            return ack.map { [standaloneAck(acknowledging: $0, to: protocolHeader, unsecured: initiator)] } ?? []
        }
        guard protocolHeader.protocolID == .secureChannel, let opcode = SecureChannelOpcode(rawValue: protocolHeader.opcode) else {
            throw MatterError.malformedMessage(
                "protocol \(protocolHeader.protocolID.number) opcode \(protocolHeader.opcode) on the unsecured session")
        }
        let reply: (SecureChannelOpcode, [UInt8])?
        if [.sigma1, .sigma3].contains(opcode) {
            do {
                reply = try handleCASE(opcode, payload: payload, initiator: initiator, exchangeID: protocolHeader.exchangeID)
            } catch {
                logger.info("CASE failed", metadata: ["reason": "\(error)"])
                pendingCASE[initiator] = nil
                let code: StatusReport.SecureChannelCode =
                    if case CASEError.noSharedRoot = error { .noSharedTrustRoots } else { .invalidParameter }
                reply = (.statusReport, StatusReport(.failure, code: code).encoded())
            }
        } else {
            do {
                reply = try handlePASE(opcode, payload: payload, initiator: initiator, exchangeID: protocolHeader.exchangeID)
            } catch let error as MatterError {
                logger.info("PASE failed", metadata: ["reason": "\(error)"])
                if pase?.initiator == initiator { pase = nil }  // a stranger's bad message does not end another's PASE
                pendingCASE[initiator] = nil
                reply = (.statusReport, StatusReport(.failure, code: .invalidParameter).encoded())
            }
        }
        guard let reply else {
            return ack.map { [standaloneAck(acknowledging: $0, to: protocolHeader, unsecured: initiator)] } ?? []
        }
        let (replyOpcode, replyPayload) = reply
        let response = ProtocolHeader(
            isInitiator: false, needsAcknowledgement: true, acknowledgedCounter: ack, opcode: replyOpcode.rawValue,
            exchangeID: protocolHeader.exchangeID, protocolID: .secureChannel)
        return [sendUnsecured(response.encoded() + replyPayload, to: initiator, reliably: true, now: now)]
    }

    /// One step of PASE; the reply to send, if any.
    private mutating func handlePASE(
        _ opcode: SecureChannelOpcode, payload: [UInt8], initiator: UnsecuredPeer, exchangeID: UInt16
    ) throws -> (SecureChannelOpcode, [UInt8])? {
        switch opcode {
        case .standaloneAck:
            return nil
        case .pbkdfParamRequest:
            let (responder, response) = try PASEResponder.start(
                request: payload, verifier: try currentVerifier(), responderSessionID: freeSessionID(), parameters: parameters)
            pase = PendingPASE(responder: responder, initiator: initiator, exchangeID: exchangeID)
            return (.pbkdfParamResponse, response)
        case .pake1:
            guard var pending = pase, pending.initiator == initiator, pending.exchangeID == exchangeID else {
                throw MatterError.pase("Pake1 without a PBKDFParamRequest on its exchange")
            }
            let pake2 = try pending.responder.pake1(payload)
            pase = pending
            return (.pake2, pake2)
        case .pake3:
            guard var pending = pase, pending.initiator == initiator, pending.exchangeID == exchangeID else {
                throw MatterError.pase("Pake3 without a Pake1 on its exchange")
            }
            pase = nil
            let keys = try pending.responder.pake3(payload)
            let responder = pending.responder
            sessions[responder.responderSessionID] = SecureSession(
                localSessionID: responder.responderSessionID, peerSessionID: responder.initiatorSessionID, keys: keys,
                peer: initiator.peer, peerParameters: responder.initiatorParameters)
            logger.info("PASE session established", metadata: ["session": "\(responder.responderSessionID)"])
            return (.statusReport, StatusReport(.success, code: .sessionEstablishmentSuccess).encoded())
        case .statusReport:
            if pase?.initiator == initiator { pase = nil }  // the commissioner gave up
            pendingCASE[initiator] = nil
            return nil
        default:
            throw MatterError.malformedMessage("secure channel opcode \(opcode) is not served on the unsecured session")
        }
    }

    private func currentVerifier() throws -> PASEVerifier {
        guard let current = commissioningVerifier(verifier) else { throw MatterError.pase("no commissioning window is open") }
        return current
    }

    /// One step of CASE as the responder: Sigma1 → Sigma2 (or Sigma2Resume), Sigma3 → the session.
    private mutating func handleCASE(
        _ opcode: SecureChannelOpcode, payload: [UInt8], initiator: UnsecuredPeer, exchangeID: UInt16
    ) throws -> (SecureChannelOpcode, [UInt8])? {
        switch opcode {
        case .sigma1:
            let fabrics = fabrics()
            if let (established, sigma2Resume) = try CASEResponder.resume(
                sigma1: payload, records: resumptions, fabrics: fabrics, responderSessionID: freeSessionID(), parameters: parameters)
            {
                let id = UInt16(try TLVDecoder.decode(sigma2Resume).value.field(3, "responderSessionID", as: UInt16.self))
                open(established, localSessionID: id, peer: initiator.peer, resumed: true)
                return (.sigma2Resume, sigma2Resume)
            }
            if pendingCASE[initiator] == nil, pendingCASE.count >= Self.pendingCASELimit { pendingCASE.removeAll() }
            let (responder, sigma2) = try CASEResponder.start(
                sigma1: payload, fabrics: fabrics, responderSessionID: freeSessionID(), parameters: parameters)
            pendingCASE[initiator] = PendingCASE(responder: responder, exchangeID: exchangeID)
            return (.sigma2, sigma2)
        default:  // Sigma3
            guard let pending = pendingCASE.removeValue(forKey: initiator), pending.exchangeID == exchangeID else {
                throw CASEError.invalid("Sigma3 without a Sigma1 on its exchange")
            }
            let established = try pending.responder.sigma3(payload)
            open(established, localSessionID: pending.responder.responderSessionID, peer: initiator.peer, resumed: false)
            return (.statusReport, StatusReport(.success, code: .sessionEstablishmentSuccess).encoded())
        }
    }

    /// Starts the secure session a CASE established (in full, or `resumed` by Sigma2Resume), and remembers how to resume it.
    private mutating func open(_ established: CASEResponder.Established, localSessionID: UInt16, peer: Peer, resumed: Bool) {
        var session = SecureSession(
            localSessionID: localSessionID, peerSessionID: established.initiatorSessionID, keys: established.keys, peer: peer,
            peerParameters: established.initiatorParameters)
        session.localNodeID = established.fabric.nodeID
        session.peerNodeID = established.peerNodeID
        session.subject = .caseSession(fabricIndex: established.fabric.index, nodeID: established.peerNodeID, tags: established.peerTags)
        sessions[localSessionID] = session
        resumptions = resumptions.filter {
            $0.value.peerNodeID != established.peerNodeID || $0.value.fabricIndex != established.fabric.index
        }
        if resumptions.count >= Self.resumptionLimit { resumptions.removeAll() }
        resumptions[established.resumption.id] = established.resumption
        logger.info(
            resumed ? "CASE session resumed" : "CASE session established",
            metadata: [
                "session": "\(localSessionID)", "fabric": "\(established.fabric.index)",
                "peer": "\(String(established.peerNodeID, radix: 16))",
            ])
    }

    private mutating func receiveSecure(
        _ datagram: [UInt8], header: MessageHeader, length: Int, from peer: Peer, now: ContinuousClock.Instant
    ) throws -> [Outgoing<Peer>] {
        guard !header.isGroup, var session = sessions[header.sessionID] else {
            throw MatterError.malformedMessage("no secure session \(header.sessionID)")
        }
        let message = try session.open(datagram, header: header, headerLength: length)
        let verdict = session.receptionWindow.receive(header.messageCounter)
        session.peer = peer  // the peer's address may change (spec 4.13.2.1)
        sessions[header.sessionID] = session
        let (protocolHeader, payload) = try ProtocolHeader.decode(message)
        if let acknowledged = protocolHeader.acknowledgedCounter {
            retransmissions.acknowledged(.init(session: header.sessionID, counter: acknowledged))
        }
        let ack = protocolHeader.needsAcknowledgement ? header.messageCounter : nil
        guard verdict == .new else {
            return try ack.map {
                [try sendSecure(ackHeader(acknowledging: $0, to: protocolHeader), on: header.sessionID, reliably: false, now: now)]
            } ?? []
        }
        if protocolHeader.protocolID == .secureChannel, protocolHeader.opcode == SecureChannelOpcode.statusReport.rawValue,
            let report = try? StatusReport.decode(payload), report.protocolCode == StatusReport.SecureChannelCode.closeSession.rawValue
        {
            sessions[header.sessionID] = nil
            return []
        }
        let context = SessionContext(
            sessionID: header.sessionID, subject: session.subject, attestationChallenge: session.keys.attestationChallenge, now: now)
        if protocolHeader.protocolID != .secureChannel, case let (opcode, reply)? = application?(protocolHeader, payload, context) {
            let response = ProtocolHeader(
                isInitiator: false, needsAcknowledgement: true, acknowledgedCounter: ack, opcode: opcode,
                exchangeID: protocolHeader.exchangeID, protocolID: protocolHeader.protocolID)
            return [try sendSecure(response.encoded() + reply, on: header.sessionID, reliably: true, now: now)]
        }
        return try ack.map {
            [try sendSecure(ackHeader(acknowledging: $0, to: protocolHeader), on: header.sessionID, reliably: false, now: now)]
        } ?? []
    }

    private func ackHeader(acknowledging counter: UInt32, to request: ProtocolHeader) -> [UInt8] {
        ProtocolHeader(
            isInitiator: !request.isInitiator, needsAcknowledgement: false, acknowledgedCounter: counter,
            opcode: SecureChannelOpcode.standaloneAck.rawValue, exchangeID: request.exchangeID, protocolID: .secureChannel
        ).encoded()
    }

    private mutating func standaloneAck(
        acknowledging counter: UInt32, to request: ProtocolHeader, unsecured initiator: UnsecuredPeer
    ) -> Outgoing<Peer> {
        sendUnsecured(ackHeader(acknowledging: counter, to: request), to: initiator, reliably: false, now: nil)
    }

    private mutating func sendUnsecured(
        _ message: [UInt8], to initiator: UnsecuredPeer, reliably: Bool, now: ContinuousClock.Instant?
    ) -> Outgoing<Peer> {
        let header = MessageHeader(sessionID: 0, messageCounter: unsecuredCounter.next(), destination: .node(initiator.ephemeralNodeID))
        let datagram = header.encoded() + message
        if reliably, let now {
            retransmissions.sent(
                .init(session: 0, counter: header.messageCounter), datagram: datagram, to: initiator.peer,
                baseInterval: parameters.activeInterval, now: now)
        }
        return Outgoing(datagram: datagram, peer: initiator.peer)
    }

    /// Ends the CASE sessions and resumption records of fabrics the node no longer belongs to (RemoveFabric).
    public mutating func closeSessions(ofFabricsOtherThan live: Set<UInt8>) {
        sessions = sessions.filter { _, session in
            guard case .caseSession(let fabricIndex, _, _) = session.subject else { return true }
            return live.contains(fabricIndex)
        }
        resumptions = resumptions.filter { live.contains($0.value.fabricIndex) }
    }

    /// A message this node starts an exchange with on a secure session (a subscription's report),
    /// sent reliably; nil when the session is gone.
    public mutating func initiate(
        on sessionID: UInt16, protocolID: ProtocolID, opcode: UInt8, payload: [UInt8], now: ContinuousClock.Instant
    ) -> Outgoing<Peer>? {
        nextExchangeID &+= 1
        let header = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, opcode: opcode, exchangeID: nextExchangeID, protocolID: protocolID)
        return try? sendSecure(header.encoded() + payload, on: sessionID, reliably: true, now: now)
    }

    private mutating func sendSecure(
        _ message: [UInt8], on sessionID: UInt16, reliably: Bool, now: ContinuousClock.Instant
    ) throws -> Outgoing<Peer> {
        guard var session = sessions[sessionID] else { throw MatterError.malformedMessage("no secure session \(sessionID)") }
        let (datagram, counter) = try session.seal(message)
        sessions[sessionID] = session
        if reliably {
            retransmissions.sent(
                .init(session: sessionID, counter: counter), datagram: datagram, to: session.peer,
                baseInterval: session.peerParameters.activeInterval, now: now)
        }
        return Outgoing(datagram: datagram, peer: session.peer)
    }

    private func freeSessionID() -> UInt16 {
        var id: UInt16
        repeat { id = UInt16.random(in: 1...UInt16.max) } while sessions[id] != nil
        return id
    }
}
