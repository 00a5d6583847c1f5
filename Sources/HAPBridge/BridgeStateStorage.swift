/// Where the bridge keeps its state, as JSON text by key: the database's `adapter_state` table,
/// through `GatewayAccess` when homegate runs, or opened by `homegate hap pairing`.
public protocol BridgeStateStorage: Sendable {
    func load(_ key: String) async throws -> String?
    func save(_ key: String, _ value: String) async throws
}

/// The keys, and the names that go with several bridges.
public enum BridgeStateKeys {
    /// The aid/iid map of every bridge.
    static let identifiers = "hap.identifiers"

    /// Bridge `index`'s identity, pairings and `c#`: `hap.pairing`, then `hap.pairing.2`, …
    static func pairing(bridge index: Int) -> String {
        index == 0 ? "hap.pairing" : "hap.pairing.\(index + 1)"
    }

    /// Whether `key` is the HomeKit bridge's (what `homegate export --include-homekit` carries).
    public static func isHomeKit(_ key: String) -> Bool { key.hasPrefix("hap.") }

    /// Bridge `index`'s name: "homegate", then "homegate 2", …
    public static func name(_ name: String, bridge index: Int) -> String {
        index == 0 ? name : "\(name) \(index + 1)"
    }
}
