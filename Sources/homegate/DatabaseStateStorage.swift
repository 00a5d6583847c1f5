import HAPBridge
import Persistence

/// The HomeKit bridges' state read (and, before the first start, written) by `homegate hap pairing`.
struct DatabaseStateStorage: BridgeStateStorage {
    let store: SQLiteHomeStore

    func load(_ key: String) async throws -> String? { try store.adapterState(key) }
    func save(_ key: String, _ value: String) async throws { try await store.saveAdapterState(key, value) }
}
