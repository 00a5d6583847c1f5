public import GatewayCore
import HAP

/// `homegate hap reset-code` and `homegate hap unpair` while homegate is not running: the bridge's
/// stored state changed as the running bridge changes it (`HAPServer.resetSetupCode`, HAP's
/// remove-pairing), so that the next start serves the new code and forgets the controllers.
extension StoredBridges {
    /// Gives bridge `number` (1 for the first) a new random setup code. Refused while `hap.setup_code`
    /// is configured: homegate puts the configured code back at every start.
    public static func resetSetupCode(
        bridge number: Int, settings: GatewayConfiguration, storage: any BridgeStateStorage
    )
        async throws -> HomeKitBridgeStatus
    {
        if settings.hap.setupCode != nil { throw BridgeError.configuration(configuredCodeWins) }
        let store = try await pairingStore(bridge: number, settings: settings, storage: storage)
        guard var identity = try await store.identity() else {
            throw BridgeError.storage("bridge \(number) has no identity in the database")
        }
        let old = identity.setupCode
        repeat { identity.setupCode = .random() } while identity.setupCode == old
        try await store.saveIdentity(identity)
        return try await bridge(number, settings: settings, storage: storage)
    }

    /// Removes `controller` from bridge `number`'s pairings (with HAP's rule: when no admin is left,
    /// every pairing goes), or every pairing when `controller` is nil. Returns the bridge after.
    public static func unpair(
        bridge number: Int, controller: String?, settings: GatewayConfiguration, storage: any BridgeStateStorage
    ) async throws -> HomeKitBridgeStatus {
        let store = try await pairingStore(bridge: number, settings: settings, storage: storage)
        let pairings = try await store.pairings()
        let removed: Set<String>
        if let controller {
            guard pairings.contains(where: { $0.controllerID == controller }) else {
                let known = pairings.map(\.controllerID)
                throw BridgeError.notFound(
                    "bridge \(number) has no paired controller '\(controller)'"
                        + (known.isEmpty ? " (it has none)" : "; paired: \(known.joined(separator: ", "))"))
            }
            removed = HAPPairing.removal(of: controller, from: pairings)
        } else {
            removed = Set(pairings.map(\.controllerID))
        }
        for id in removed.sorted() { try await store.removePairing(controllerID: id) }
        return try await bridge(number, settings: settings, storage: storage)
    }

    /// Gives bridge `number` a new identity as the running bridge does (`HAPServer.resetIdentity`): a
    /// new device id, key and setup ID, no pairing, `c#` 1, and a new setup code unless
    /// `hap.setup_code` gives bridge 1 its code. Returns the bridge after.
    public static func resetIdentity(
        bridge number: Int, settings: GatewayConfiguration, storage: any BridgeStateStorage
    ) async throws -> HomeKitBridgeStatus {
        let store = try await pairingStore(bridge: number, settings: settings, storage: storage)
        let configured = number == 1 ? try settings.hap.revealedSetupCode.map { try HAPSetupCode($0) } : nil
        let old = try await store.identity()
        var fresh = HAPIdentity.generate(setupCode: configured)
        while fresh.deviceID == old?.deviceID || (configured == nil && fresh.setupCode == old?.setupCode) {
            fresh = HAPIdentity.generate(setupCode: configured)
        }
        for pairing in try await store.pairings() { try await store.removePairing(controllerID: pairing.controllerID) }
        try await store.saveConfigurationNumber(1)
        try await store.saveIdentity(fresh)
        return try await bridge(number, settings: settings, storage: storage)
    }

    static let configuredCodeWins =
        "hap.setup_code is configured (in the configuration file or HOMEGATE_HAP_SETUP_CODE), and homegate puts it back at every start: remove it first, then reset the code"

    /// Bridge `number`'s pairing store, after checking that the house has that bridge (and making
    /// the identities of bridges that have none yet, as `homegate hap pairing` does).
    private static func pairingStore(
        bridge number: Int, settings: GatewayConfiguration, storage: any BridgeStateStorage
    )
        async throws -> StoredPairingStore
    {
        let bridges = try await load(settings: settings, storage: storage, canWrite: true)
        guard bridges.indices.contains(number - 1) else {
            throw BridgeError.notFound(
                "there is no bridge \(number): this house has \(bridges.count == 1 ? "one bridge (1)" : "bridges 1 to \(bridges.count)")")
        }
        return StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: number - 1))
    }

    private static func bridge(
        _ number: Int, settings: GatewayConfiguration, storage: any BridgeStateStorage
    ) async throws
        -> HomeKitBridgeStatus
    {
        try await load(settings: settings, storage: storage, canWrite: true)[number - 1]
    }
}
