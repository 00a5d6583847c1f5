import Synchronization

@testable import HAPBridge

/// The bridge's state in memory, in place of the database.
final class MemoryStorage: BridgeStateStorage {
    private let values = Mutex<[String: String]>([:])

    func load(_ key: String) async throws -> String? { values.withLock { $0[key] } }
    func save(_ key: String, _ value: String) async throws { values.withLock { $0[key] = value } }
}
