import Logging

extension HAPRouter {
    func pairSetupRoute(_ request: HAPRequest, _ state: HAPConnectionState) async -> HAPOutcome {
        guard let tlv = try? TLV8(decoding: request.body) else {
            return HAPOutcome(.tlv(PairVerify.failure(2, .unknown), status: 400))
        }
        guard let identity = try? await store.identity() else { return HAPOutcome(.tlv(PairVerify.failure(2, .unknown), status: 500)) }
        let answer = await pairSetup.handle(tlv, from: state.id, identity: identity, now: .now)
        if answer.byte(.state) == 6, answer[.error] == nil { configuration.onPairedChange?(true) }
        return HAPOutcome(.tlv(answer))
    }

    func pairVerifyRoute(_ request: HAPRequest, _ state: HAPConnectionState) async -> HAPOutcome {
        guard let tlv = try? TLV8(decoding: request.body) else {
            return HAPOutcome(.tlv(PairVerify.failure(2, .unknown), status: 400))
        }
        var state = state
        switch tlv.byte(.state) {
        case 1:
            guard let identity = try? await store.identity() else { return HAPOutcome(.tlv(PairVerify.failure(2, .unknown), status: 500)) }
            let (answer, pending) = PairVerify.start(tlv, identity: identity)
            state.pendingVerify = pending
            return HAPOutcome(.tlv(answer), state: state)
        case 3:
            guard let pending = state.pendingVerify, let pairings = try? await store.pairings() else {
                return HAPOutcome(.tlv(PairVerify.failure(4, .authentication)))
            }
            state.pendingVerify = nil
            let (answer, verified) = PairVerify.finish(tlv, pending: pending, pairings: pairings)
            guard let verified else {
                logger.info("pair-verify refused", metadata: ["connection": "\(state.id)"])
                return HAPOutcome(.tlv(answer), state: state)
            }
            state.session = .init(controllerID: verified.controllerID, isAdmin: verified.isAdmin)
            var outcome = HAPOutcome(.tlv(answer), state: state)
            outcome.sessionKeys = verified.keys
            return outcome
        default:
            return HAPOutcome(.tlv(PairVerify.failure(2, .unknown), status: 400))
        }
    }

    /// Add (3), remove (4) and list (5) pairings; admin controllers only.
    func pairingsRoute(_ request: HAPRequest, _ state: HAPConnectionState, session: HAPConnectionState.Session) async -> HAPOutcome {
        guard let tlv = try? TLV8(decoding: request.body), tlv.byte(.state) == 1 else {
            return HAPOutcome(.tlv(PairVerify.failure(2, .unknown), status: 400))
        }
        do {
            let pairings = try await store.pairings()
            guard pairings.first(where: { $0.controllerID == session.controllerID })?.isAdmin == true else {
                return HAPOutcome(.tlv(PairVerify.failure(2, .authentication)))
            }
            switch tlv.byte(.method) {
            case 3: return HAPOutcome(.tlv(try await addPairing(tlv, existing: pairings)))
            case 4: return try await removePairing(tlv, existing: pairings, state: state, session: session)
            case 5: return HAPOutcome(.tlv(listPairings(pairings)))
            default: return HAPOutcome(.tlv(PairVerify.failure(2, .unknown)))
            }
        } catch {
            logger.error("pairings: the store failed: \(error)")
            return HAPOutcome(.tlv(PairVerify.failure(2, .unknown)))
        }
    }

    static let maxPairings = 16

    private func addPairing(_ tlv: TLV8, existing: [HAPPairing]) async throws -> TLV8 {
        guard let identifier = tlv[.identifier], let controllerID = String(validating: identifier, as: UTF8.self),
            !controllerID.isEmpty, let publicKey = tlv[.publicKey], publicKey.count == 32,
            let permissions = tlv.byte(.permissions)
        else { return PairVerify.failure(2, .unknown) }
        if let current = existing.first(where: { $0.controllerID == controllerID }) {
            guard current.publicKey == publicKey else { return PairVerify.failure(2, .unknown) }
        } else if existing.count >= HAPRouter.maxPairings {
            return PairVerify.failure(2, .maxPeers)
        }
        try await store.savePairing(HAPPairing(controllerID: controllerID, publicKey: publicKey, isAdmin: permissions & 1 == 1))
        logger.info("pairing added", metadata: ["admin": "\(permissions & 1 == 1)"])
        return TLV8([(.state, [2])])
    }

    private func removePairing(
        _ tlv: TLV8, existing: [HAPPairing], state: HAPConnectionState, session: HAPConnectionState.Session
    ) async throws -> HAPOutcome {
        guard let identifier = tlv[.identifier], let controllerID = String(validating: identifier, as: UTF8.self) else {
            return HAPOutcome(.tlv(PairVerify.failure(2, .unknown)))
        }
        let removed = HAPPairing.removal(of: controllerID, from: existing)
        try await store.removePairing(controllerID: controllerID)
        for other in removed.sorted() where other != controllerID { try await store.removePairing(controllerID: other) }
        logger.info("pairing removed", metadata: ["pairings left": "\(existing.count - removed.count)"])
        registry.closeSessions(of: removed, keeping: state.id)
        if removed.count == existing.count { configuration.onPairedChange?(false) }
        var outcome = HAPOutcome(.tlv(TLV8([(.state, [2])])))
        outcome.closeAfterResponse = removed.contains(session.controllerID)
        return outcome
    }

    private func listPairings(_ pairings: [HAPPairing]) -> TLV8 {
        var answer = TLV8([(.state, [2])])
        for (index, pairing) in pairings.enumerated() {
            if index > 0 { answer.append(.separator, []) }
            answer.append(.identifier, Array(pairing.controllerID.utf8))
            answer.append(.publicKey, pairing.publicKey)
            answer.append(.permissions, byte: pairing.isAdmin ? 1 : 0)
        }
        return answer
    }
}
