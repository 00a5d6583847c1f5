public import Gateway
import HAP

/// What a person needs to add the bridge to Apple Home, read from the pairing store that
/// `homegate run` uses (`homegate hap pairing`).
public struct HAPBridgePairing: Sendable {
    /// `XXX-XX-XXX`, to type into Apple Home.
    public var setupCode: String
    /// `X-HM://…`, the QR code's content.
    public var setupURI: String
    public var deviceID: String
    /// The paired controllers' ids, admins marked.
    public var pairings: [(id: String, admin: Bool)]
    public var configurationNumber: UInt32
    public var storePath: String

    /// Reads the stored identity; before the bridge's first start, makes and stores it (with the
    /// configured setup code, or a random one), so that the code printed is the code that pairs.
    public static func load(settings: GatewayConfiguration) async throws -> HAPBridgePairing {
        let files = HAPBridgeFiles(database: settings.database)
        try files.makeFolder()
        let store = try HAPFilePairingStore(path: files.pairingStore)
        let configured: HAPSetupCode?
        do {
            configured = try settings.hap.revealedSetupCode.map { try HAPSetupCode($0) }
        } catch {
            throw HAPBridgeError.configuration("hap.setup_code: HomeKit refuses codes that are too easy to guess")
        }
        let identity: HAPIdentity
        if var stored = try await store.identity() {
            // `homegate run` puts a configured code in place of the stored one at its start.
            if let configured { stored.setupCode = configured }
            identity = stored
        } else {
            identity = HAPIdentity.generate(setupCode: configured)
            try await store.saveIdentity(identity)
        }
        return HAPBridgePairing(
            setupCode: identity.setupCode.description,
            setupURI: HAPSetupURI.make(code: identity.setupCode, setupID: identity.setupID, category: .bridge),
            deviceID: identity.deviceID.description,
            pairings: try await store.pairings().map { ($0.controllerID, $0.isAdmin) },
            configurationNumber: try await store.configurationNumber(), storePath: files.pairingStore)
    }
}
