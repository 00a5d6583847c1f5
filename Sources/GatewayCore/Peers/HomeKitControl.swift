/// What the HTTP API can do with the HomeKit bridge, without knowing the module that runs it: read
/// each bridge's pairing state, make a new setup code, remove pairings. `HAPBridge` implements it;
/// `homegate run` hands it to the HTTP API when `hap.enabled` is true. It is a contract between two
/// peers, so it lives in the core with its status types: neither front end imports the other.
public protocol HomeKitControl: Sendable {
    /// Every bridge, the first one first.
    func bridges() async throws(HomeKitControlError) -> [HomeKitBridgeStatus]
    /// A new random setup code for bridge `bridge` (1 for the first); wrong attempts are forgotten.
    func resetSetupCode(bridge: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus
    /// Removes one controller's pairing, as HomeKit's own remove does: removing the last admin
    /// removes every pairing. The controller's open connections are closed.
    func removePairing(bridge: Int, controller: String) async throws(HomeKitControlError) -> HomeKitBridgeStatus
    /// Removes every pairing: the bridge can be added to a home again.
    func removeAllPairings(bridge: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus
    /// A new identity (device id, key, setup ID, setup code unless configured) and no pairing:
    /// HomeKit sees a new accessory, for "accessory already added" that unpairing does not cure.
    func resetIdentity(bridge: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus
}

/// Why a `HomeKitControl` request was refused, for a person; the HTTP API maps each case to a status.
public enum HomeKitControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such bridge or controller (404).
    case notFound(String)
    /// The request cannot be done in this configuration (409).
    case conflict(String)
    /// The pairing store failed (500).
    case failed(String)

    public var description: String {
        switch self {
        case .notFound(let message), .conflict(let message), .failed(let message): message
        }
    }
}
