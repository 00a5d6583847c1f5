import Crypto

/// The keys of a secure session, from HKDF over the shared secret (Matter specification 4.14.2.6 for
/// PASE: info "SessionKeys", salt empty).
public struct SessionKeys: Sendable, Equatable {
    public let initiatorToResponder: [UInt8]
    public let responderToInitiator: [UInt8]
    public let attestationChallenge: [UInt8]

    init(sharedSecret: [UInt8], salt: [UInt8] = [], info: String = "SessionKeys") {
        let keys = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: sharedSecret), salt: salt, info: Array(info.utf8), outputByteCount: 48
        ).withUnsafeBytes { Array($0) }
        initiatorToResponder = Array(keys[0..<16])
        responderToInitiator = Array(keys[16..<32])
        attestationChallenge = Array(keys[32..<48])
    }
}

/// The device's side of one PASE exchange: PBKDFParamRequest → Response, Pake1 → Pake2, Pake3 →
/// the session keys (or an error when the commissioner's passcode was wrong).
struct PASEResponder: Sendable {
    enum Step: Sendable {
        case awaitingPake1(context: [UInt8])
        case awaitingPake3(SPAKE2PlusVerifier)
        case finished
    }

    let verifier: PASEVerifier
    let initiatorSessionID: UInt16
    let responderSessionID: UInt16
    let initiatorParameters: SessionParameters
    private(set) var step: Step

    /// Answers a PBKDFParamRequest: the response's payload, and the responder awaiting Pake1.
    static func start(
        request: [UInt8], verifier: PASEVerifier, responderSessionID: UInt16, parameters: SessionParameters
    ) throws -> (PASEResponder, response: [UInt8]) {
        let parsed = try PBKDFParamRequest(tlv: request)
        guard parsed.passcodeID == 0 else {
            throw MatterError.pase("passcode id \(parsed.passcodeID); only the default passcode (0) exists")
        }
        var random = SystemRandomNumberGenerator()
        let response = PBKDFParamResponse(
            initiatorRandom: parsed.initiatorRandom,
            responderRandom: (0..<32).map { _ in random.next() },
            responderSessionID: responderSessionID,
            pbkdf: parsed.hasPBKDFParameters ? nil : (verifier.iterations, verifier.salt),
            responderParameters: parameters
        ).encoded()
        // The SPAKE2+ context binds the PAKE to both parameter messages, byte for byte.
        let context = Array(SHA256.hash(data: Array("CHIP PAKE V1 Commissioning".utf8) + request + response))
        let responder = PASEResponder(
            verifier: verifier, initiatorSessionID: parsed.initiatorSessionID, responderSessionID: responderSessionID,
            initiatorParameters: parsed.initiatorParameters ?? SessionParameters(), step: .awaitingPake1(context: context))
        return (responder, response)
    }

    /// Answers Pake1 with Pake2.
    mutating func pake1(_ payload: [UInt8]) throws -> [UInt8] {
        guard case .awaitingPake1(let context) = step else { throw MatterError.pase("Pake1 out of order") }
        let spake = try SPAKE2PlusVerifier(context: context, X: try PakeMessage.pake1(payload), verifier: verifier)
        step = .awaitingPake3(spake)
        return PakeMessage.pake2(pB: spake.Y, cB: spake.confirmation)
    }

    /// Checks Pake3: the session keys when the commissioner knew the passcode.
    mutating func pake3(_ payload: [UInt8]) throws -> SessionKeys {
        guard case .awaitingPake3(let spake) = step else { throw MatterError.pase("Pake3 out of order") }
        step = .finished
        guard spake.verifies(proverConfirmation: try PakeMessage.pake3(payload)) else {
            throw MatterError.pase("the commissioner's confirmation cA does not match: wrong passcode")
        }
        return SessionKeys(sharedSecret: spake.sharedSecret)
    }
}
