import GatewayCore

/// The bridge's state in homegate's database, through the running gateway.
struct GatewayStateStorage: BridgeStateStorage {
    let access: any GatewayAccess

    func load(_ key: String) async throws -> String? { try access.adapterState(key) }
    func save(_ key: String, _ value: String) async throws { try await access.saveAdapterState(key, value) }
}
