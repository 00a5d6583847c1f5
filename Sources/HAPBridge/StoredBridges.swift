public import GatewayCore
import HAP

/// The bridges' state in the database that `homegate run` uses, for `homegate hap …` while homegate
/// is not running (or next to it, reading).
public enum StoredBridges {
    /// Every bridge the house has (one per 149 accessories), from `storage` (the database). Before
    /// the first bridge's first start, makes and stores its identity (with the configured setup
    /// code, or a random one), so that the code printed is the code that pairs; `canWrite` false
    /// (homegate runs and holds the database) says so instead.
    public static func load(
        settings: GatewayConfiguration, storage: any BridgeStateStorage, canWrite: Bool
    ) async throws
        -> [HomeKitBridgeStatus]
    {
        let configured: HAPSetupCode?
        do {
            configured = try settings.hap.revealedSetupCode.map { try HAPSetupCode($0) }
        } catch {
            throw BridgeError.configuration("hap.setup_code: HomeKit refuses codes that are too easy to guess")
        }
        let count = max(1, try await IdentifierStorage(storage: storage).load().bridgeCount)
        var bridges: [HomeKitBridgeStatus] = []
        for index in 0..<count {
            let store = StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: index))
            let identity: HAPIdentity
            if var stored = try await store.identity() {
                // `homegate run` puts a configured code in place of the first bridge's stored one at its start.
                if index == 0, let configured { stored.setupCode = configured }
                identity = stored
            } else {
                guard canWrite else {
                    throw BridgeError.storage(
                        "bridge \(index + 1) has no identity yet, and the running homegate holds the database: start it with hap.enabled: true, then ask again"
                    )
                }
                identity = HAPIdentity.generate(setupCode: index == 0 ? configured : nil)
                try await store.saveIdentity(identity)
            }
            bridges.append(
                HomeKitBridgeStatus(
                    number: index + 1, name: BridgeStateKeys.name(settings.hap.name, bridge: index),
                    port: settings.hap.port == 0 ? 0 : settings.hap.port + index, deviceID: identity.deviceID.description,
                    setupCode: identity.setupCode.description,
                    setupURI: HAPSetupURI.make(code: identity.setupCode, setupID: identity.setupID, category: .bridge),
                    configurationNumber: Int(try await store.configurationNumber()),
                    controllers: try await store.pairings().map { .init(id: $0.controllerID, admin: $0.isAdmin) }, running: nil))
        }
        return bridges
    }
}
