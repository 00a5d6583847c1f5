import Crypto

/// Pair-verify M1 to M4 on one connection: an X25519 exchange signed with both long-term keys.
enum PairVerify {
    /// What the connection keeps between M2 and M3.
    struct Pending: Sendable {
        let sharedSecret: [UInt8]
        let accessoryPublicKey: [UInt8]
        let controllerPublicKey: [UInt8]
        let encryptionKey: SymmetricKey
    }

    /// The outcome of M3.
    struct Verified: Sendable {
        let controllerID: String
        let isAdmin: Bool
        let keys: HAPSessionKeys
    }

    static func failure(_ state: UInt8, _ code: PairingErrorCode) -> TLV8 {
        TLV8([(.state, [state]), (.error, [code.rawValue])])
    }

    /// M1 → M2. A resume request (method 6) is answered as a full verify, which controllers accept.
    static func start(_ request: TLV8, identity: HAPIdentity) -> (TLV8, Pending?) {
        guard let controllerKey = request[.publicKey],
            let controllerPublicKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: controllerKey)
        else { return (failure(2, .authentication), nil) }
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        guard let shared = try? ephemeral.sharedSecretFromKeyAgreement(with: controllerPublicKey) else {
            return (failure(2, .authentication), nil)
        }
        let sharedSecret = shared.withUnsafeBytes { Array($0) }
        let accessoryKey = Array(ephemeral.publicKey.rawRepresentation)
        let deviceID = Array(identity.deviceID.description.utf8)
        guard let signature = try? identity.signingKey.signature(for: accessoryKey + deviceID + controllerKey) else {
            return (failure(2, .unknown), nil)
        }
        let encryptionKey = HAPKeys.derive(sharedSecret, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let inner = TLV8([(.identifier, deviceID), (.signature, Array(signature))])
        guard let sealed = try? HAPKeys.seal(inner.encoded(), key: encryptionKey, nonce: HAPKeys.nonce(label: "PV-Msg02")) else {
            return (failure(2, .unknown), nil)
        }
        let pending = Pending(
            sharedSecret: sharedSecret, accessoryPublicKey: accessoryKey, controllerPublicKey: controllerKey,
            encryptionKey: encryptionKey)
        return (TLV8([(.state, [2]), (.publicKey, accessoryKey), (.encryptedData, sealed)]), pending)
    }

    /// M3 → M4: checks the controller's signature against its stored long-term key.
    static func finish(_ request: TLV8, pending: Pending, pairings: [HAPPairing]) -> (TLV8, Verified?) {
        guard let sealed = request[.encryptedData],
            let plaintext = HAPKeys.open(sealed, key: pending.encryptionKey, nonce: HAPKeys.nonce(label: "PV-Msg03")),
            let inner = try? TLV8(decoding: plaintext),
            let identifier = inner[.identifier], let signature = inner[.signature],
            let controllerID = String(validating: identifier, as: UTF8.self),
            let pairing = pairings.first(where: { $0.controllerID == controllerID }),
            let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: pairing.publicKey),
            publicKey.isValidSignature(signature, for: pending.controllerPublicKey + identifier + pending.accessoryPublicKey)
        else { return (failure(4, .authentication), nil) }
        let keys = HAPSessionKeys(sharedSecret: pending.sharedSecret)
        return (TLV8([(.state, [4])]), Verified(controllerID: controllerID, isAdmin: pairing.isAdmin, keys: keys))
    }
}
