public import GatewayCore

/// Where the home is kept. The gateway owns the state; the store only mirrors it.
public protocol HomeStore: Sendable {
    /// Everything stored, or nil for a new database.
    func load() throws(PersistenceError) -> StoredHome?
    /// Writes a batch in one transaction, off the caller's thread.
    func write(_ batch: StoreBatch) async throws(PersistenceError)
}
