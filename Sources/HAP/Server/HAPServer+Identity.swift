import Logging

extension HAPServer {
    /// The stored identity, made and saved on the first call; the configured setup code replaces a stored one.
    public func identity() async throws -> HAPIdentity {
        if var identity = try await store.identity() {
            if let code = configuration.setupCode, code != identity.setupCode {
                identity.setupCode = code
                try await store.saveIdentity(identity)
                await pairSetup.setupCodeChanged()
            }
            return identity
        }
        let identity = HAPIdentity.generate(setupCode: configuration.setupCode)
        try await store.saveIdentity(identity)
        logger.info("made a new HAP identity", metadata: ["device id": "\(identity.deviceID)"])
        return identity
    }

    /// A new random (or given) setup code; the wrong attempts counted against the old one are forgotten.
    public func resetSetupCode(_ code: HAPSetupCode? = nil) async throws -> HAPIdentity {
        var identity = try await identity()
        identity.setupCode = code ?? .random()
        try await store.saveIdentity(identity)
        await pairSetup.setupCodeChanged()
        return identity
    }

    /// A new accessory to HomeKit, for "accessory already added" that removing the pairings does
    /// not cure: a new device id, long-term key and setup ID, every pairing removed and every
    /// session closed, `c#` back to 1 (HAP-NodeJS starts a new identity's configuration there).
    /// The setup code is new too, unless the configuration gives one.
    public func resetIdentity() async throws -> HAPIdentity {
        let old = try await identity()
        var fresh = HAPIdentity.generate(setupCode: configuration.setupCode)
        while fresh.deviceID == old.deviceID || (configuration.setupCode == nil && fresh.setupCode == old.setupCode) {
            fresh = HAPIdentity.generate(setupCode: configuration.setupCode)
        }
        let pairings = try await store.pairings()
        for pairing in pairings { try await store.removePairing(controllerID: pairing.controllerID) }
        try await store.saveConfigurationNumber(1)
        try await store.saveIdentity(fresh)
        await pairSetup.setupCodeChanged()
        registry.closeAll()
        logger.notice(
            "made a new HAP identity: HomeKit sees a new accessory", metadata: ["device id": "\(fresh.deviceID)", "pairings removed": "\(pairings.count)"])
        if !pairings.isEmpty { configuration.onPairedChange?(false) }
        return fresh
    }

    /// The `X-HM://` URI for the QR code.
    public func setupURI() async throws -> String {
        let identity = try await identity()
        return HAPSetupURI.make(code: identity.setupCode, setupID: identity.setupID, category: configuration.category)
    }

    /// The `_hap._tcp` TXT record as it stands now.
    public func txtRecord() async throws -> [String: String] {
        HAPTXTRecord.make(
            identity: try await identity(), model: configuration.model, category: configuration.category,
            configurationNumber: try await store.configurationNumber(), isPaired: !(try await store.pairings().isEmpty))
    }

    /// The accessory set changed: re-reads it and bumps `c#` (1…65535, then 1 again). Returns the new `c#`.
    @discardableResult
    public func accessoriesChanged() async throws -> UInt32 {
        database.replace(with: await provider.accessories())
        let current = try await store.configurationNumber()
        let next: UInt32 = current >= 65535 ? 1 : current + 1
        try await store.saveConfigurationNumber(next)
        return next
    }
}
