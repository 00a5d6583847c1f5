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
