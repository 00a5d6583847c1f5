import Crypto
import Logging

/// Pair-setup M1 to M6: one exchange at a time for the whole server, wrong codes counted.
actor PairSetup {
    private enum Step {
        case sentM2(SRPServer)
        case sentM4(sessionKey: [UInt8])
    }

    private struct Exchange {
        let connection: HAPConnectionID
        let started: ContinuousClock.Instant
        var step: Step
    }

    /// An exchange left silent this long no longer makes other controllers Busy.
    static let abandonedAfter = Duration.seconds(30)

    private let store: any HAPPairingStore
    /// Whether the connection holding an exchange is still open; a closed one no longer makes others Busy.
    private let isConnectionOpen: @Sendable (HAPConnectionID) -> Bool
    private let logger: Logger
    private var exchange: Exchange?
    private var cachedVerifier: (code: HAPSetupCode, verifier: SRPVerifier)?
    private var failedAttempts = 0
    private var lastFailure: ContinuousClock.Instant?
    private let limits: Limits

    /// How many wrong setup codes the accessory takes.
    struct Limits: Sendable {
        /// Wrong codes allowed before a growing backoff (5 s more for each, at most 60 s).
        var freeTries = 5
        /// After this many wrong codes in a row pair-setup answers MaxTries until restart or a new code.
        var maxTries = 100
    }

    init(
        store: any HAPPairingStore, logger: Logger, limits: Limits = Limits(),
        isConnectionOpen: @escaping @Sendable (HAPConnectionID) -> Bool
    ) {
        self.store = store
        self.limits = limits
        self.isConnectionOpen = isConnectionOpen
        self.logger = logger
    }

    /// Handles one POST /pair-setup body; the answer always carries the next state.
    func handle(_ request: TLV8, from connection: HAPConnectionID, identity: HAPIdentity, now: ContinuousClock.Instant) async -> TLV8 {
        switch request.byte(.state) {
        case 1: await startExchange(connection: connection, identity: identity, now: now)
        case 3: verifyCode(request, connection: connection, now: now)
        case 5: await exchangeKeys(request, connection: connection, identity: identity)
        default: TLV8([(.state, [2]), (.error, [PairingErrorCode.unknown.rawValue])])
        }
    }

    /// Ends an exchange whose connection closed, so that another controller is not kept Busy.
    func connectionClosed(_ connection: HAPConnectionID) {
        if exchange?.connection == connection { exchange = nil }
    }

    /// A new setup code forgets the wrong attempts made against the old one.
    func setupCodeChanged() {
        failedAttempts = 0
        lastFailure = nil
        cachedVerifier = nil
    }

    private func failure(_ state: UInt8, _ code: PairingErrorCode, retryDelay: Int? = nil) -> TLV8 {
        var answer = TLV8([(.state, [state]), (.error, [code.rawValue])])
        if let retryDelay { answer.append(.retryDelay, [UInt8(clamping: retryDelay)]) }
        return answer
    }

    private func startExchange(connection: HAPConnectionID, identity: HAPIdentity, now: ContinuousClock.Instant) async -> TLV8 {
        guard let pairings = try? await store.pairings() else { return failure(2, .unknown) }
        guard pairings.isEmpty else {
            logger.info("pair-setup refused: already paired", metadata: ["connection": "\(connection)"])
            return failure(2, .unavailable)
        }
        guard failedAttempts < limits.maxTries else {
            logger.warning("pair-setup refused: \(failedAttempts) wrong setup codes; a new setup code (homegate hap reset-code, or New setup code on the page) opens pairing again")
            return failure(2, .maxTries)
        }
        if let wait = backoff(now: now) {
            return failure(2, .backoff, retryDelay: wait)
        }
        if let exchange, exchange.connection != connection, isConnectionOpen(exchange.connection),
            now - exchange.started < PairSetup.abandonedAfter
        {
            return failure(2, .busy)
        }
        let verifier: SRPVerifier
        if let cachedVerifier, cachedVerifier.code == identity.setupCode {
            verifier = cachedVerifier.verifier
        } else {
            verifier = SRPVerifier(password: identity.setupCode.description)
            cachedVerifier = (identity.setupCode, verifier)
        }
        let srp = SRPServer(verifier: verifier)
        exchange = Exchange(connection: connection, started: now, step: .sentM2(srp))
        return TLV8([(.state, [2]), (.salt, verifier.salt), (.publicKey, srp.publicKey)])
    }

    /// Seconds left to wait after too many wrong codes: 5 s more for each beyond the free ones, at most 60.
    private func backoff(now: ContinuousClock.Instant) -> Int? {
        guard failedAttempts >= limits.freeTries, let lastFailure else { return nil }
        let delay = Duration.seconds(min(60, 5 * (failedAttempts - limits.freeTries + 1)))
        let remaining = lastFailure + delay - now
        guard remaining > .zero else { return nil }
        return Int(remaining.components.seconds) + (remaining.components.attoseconds > 0 ? 1 : 0)
    }

    private func verifyCode(_ request: TLV8, connection: HAPConnectionID, now: ContinuousClock.Instant) -> TLV8 {
        guard let exchange, exchange.connection == connection, case .sentM2(let srp) = exchange.step else {
            return failure(4, .unknown)
        }
        guard let publicKey = request[.publicKey], let proof = request[.proof],
            let session = srp.verify(clientPublicKey: publicKey, clientProof: proof)
        else {
            self.exchange = nil
            failedAttempts += 1
            lastFailure = now
            logger.info("pair-setup: wrong setup code", metadata: ["connection": "\(connection)", "failures": "\(failedAttempts)"])
            return failure(4, .authentication)
        }
        self.exchange?.step = .sentM4(sessionKey: session.sessionKey)
        return TLV8([(.state, [4]), (.proof, session.serverProof)])
    }

    private func exchangeKeys(_ request: TLV8, connection: HAPConnectionID, identity: HAPIdentity) async -> TLV8 {
        guard let exchange, exchange.connection == connection, case .sentM4(let sessionKey) = exchange.step else {
            return failure(6, .unknown)
        }
        self.exchange = nil
        let encryptionKey = HAPKeys.derive(sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        guard let sealed = request[.encryptedData],
            let plaintext = HAPKeys.open(sealed, key: encryptionKey, nonce: HAPKeys.nonce(label: "PS-Msg05")),
            let inner = try? TLV8(decoding: plaintext),
            let controllerID = inner[.identifier], let controllerKey = inner[.publicKey], let signature = inner[.signature],
            let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: controllerKey)
        else { return failure(6, .authentication) }

        let controllerX = HAPKeys.derive(sessionKey, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
        let signed = controllerX.withUnsafeBytes { Array($0) } + controllerID + controllerKey
        guard publicKey.isValidSignature(signature, for: signed) else { return failure(6, .authentication) }
        guard let identifier = String(validating: controllerID, as: UTF8.self) else { return failure(6, .authentication) }

        do {
            guard try await store.pairings().isEmpty else { return failure(6, .unavailable) }
            try await store.savePairing(HAPPairing(controllerID: identifier, publicKey: controllerKey, isAdmin: true))
        } catch {
            logger.error("pair-setup: cannot save the pairing: \(error)")
            return failure(6, .unknown)
        }
        failedAttempts = 0
        lastFailure = nil

        let accessoryX = HAPKeys.derive(sessionKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        let deviceID = Array(identity.deviceID.description.utf8)
        let accessoryKey = identity.longTermPublicKey
        let accessoryInfo = accessoryX.withUnsafeBytes { Array($0) } + deviceID + accessoryKey
        guard let accessorySignature = try? identity.signingKey.signature(for: accessoryInfo) else { return failure(6, .unknown) }
        let answer = TLV8([(.identifier, deviceID), (.publicKey, accessoryKey), (.signature, Array(accessorySignature))])
        guard let sealedAnswer = try? HAPKeys.seal(answer.encoded(), key: encryptionKey, nonce: HAPKeys.nonce(label: "PS-Msg06"))
        else { return failure(6, .unknown) }
        logger.info("paired with a new admin controller", metadata: ["connection": "\(connection)"])
        return TLV8([(.state, [6]), (.encryptedData, sealedAnswer)])
    }
}
