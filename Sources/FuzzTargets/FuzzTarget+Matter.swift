import Matter

extension FuzzTarget {
    /// Matter TLV: whatever decodes encodes to bytes that decode to the same element.
    static func matterTLV(_ bytes: [UInt8]) -> String? {
        guard let element = try? TLVDecoder.decode(bytes) else { return nil }
        let again: TLVElement
        do {
            again = try TLVDecoder.decode(TLVEncoder.encode(element))
        } catch {
            return "the re-encoded element does not decode: \(error)"
        }
        return again == element || element.containsNaN ? nil : "the element changed on a round trip: \(element) came back as \(again)"
    }

    /// A datagram into the node's message layer (headers, the unsecured session's PASE and CASE
    /// messages, secure sessions), as it comes off the UDP socket.
    static func matterMessage(_ bytes: [UInt8]) -> String? {
        var dispatcher = FuzzMatter.dispatcher()
        _ = dispatcher.receive(bytes, from: 1, now: .now)
        _ = dispatcher.tick(now: .now)
        return nil
    }

    /// A Matter TLV certificate (as AddTrustedRootCertificate, AddNOC and Sigma3 carry one) and its X.509 form.
    static func matterCertificate(_ bytes: [UInt8]) -> String? {
        guard let certificate = try? MatterCertificate(tlv: bytes) else { return nil }
        _ = certificate.x509()
        _ = certificate.isSigned(by: certificate.publicKey)
        return nil
    }

    /// The first byte picks an Interaction Model opcode, the rest is its payload, answered by a node
    /// over a PASE session (Read, Write, Invoke, Subscribe, Timed, StatusResponse).
    static func matterInteraction(_ bytes: [UInt8]) -> String? {
        guard let opcode = bytes.first else { return nil }
        let header = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, opcode: opcode % 12, exchangeID: 1, protocolID: .interactionModel)
        let session = SessionContext(sessionID: 1, subject: .pase, attestationChallenge: [UInt8](repeating: 0, count: 16), now: .now)
        _ = FuzzMatter.node().respond(to: header, payload: Array(bytes.dropFirst()), session: session)
        return nil
    }
}

extension TLVElement {
    /// NaN is not equal to itself: a round trip of one is not a failure.
    var containsNaN: Bool {
        switch value {
        case .float(let value): value.isNaN
        case .double(let value): value.isNaN
        case .structure(let members), .array(let members), .list(let members): members.contains { $0.containsNaN }
        default: false
        }
    }
}

/// The node and message layer the Matter targets feed, new for each input: a static one would hold
/// its TLV values behind tagged pointers that LeakSanitizer takes for leaks (and would carry state
/// from one input to the next). The verifier is given, not derived: PBKDF2 is slow on purpose.
enum FuzzMatter {
    /// w0 and L for passcode 20202021, salt 16 × 0x5A, 1000 iterations (PBKDF2-SHA256, as `PASEVerifier` derives them).
    static let w0 = hex("26012df8bf442a5b9004c0c4af89d52d953a831b0151c15da32acba220e0b8b3")
    static let L = hex(
        "042503b140761ee65759362b576eaf821b229aeeb998c6a07ad74382d3d1e056e3b17533ae117a907c8c7aa8db50fa854b7104688772eb8339670985404560ec71"
    )

    static func dispatcher() -> MessageDispatcher<Int> {
        // The SDK's example passcode's verifier for this salt (w0, L), so that a Pake1 is worked through.
        let verifier = PASEVerifier(
            w0: FuzzMatter.w0, L: FuzzMatter.L, salt: [UInt8](repeating: 0x5A, count: 16), iterations: 1000)
        var dispatcher = MessageDispatcher<Int>(verifier: verifier)
        let node = node()
        dispatcher.application = { header, payload, session in node.respond(to: header, payload: payload, session: session) }
        return dispatcher
    }

    static func node() -> MatterNode {
        let model = DataModel(endpoints: [
            0: [0x28: DataModel.Cluster(attributes: [5: .utf8(""), 6: .utf8("XX"), 2: .unsigned(0xFFF1)])],
            1: [0x06: DataModel.Cluster(attributes: [0: .bool(false)])],
        ])
        return MatterNode(model: model, attestation: nil)
    }
}
