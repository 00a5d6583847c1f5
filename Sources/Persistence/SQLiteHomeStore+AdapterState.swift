import GRDB

/// What a front end keeps for itself, by key: the HomeKit bridge's identity, pairings and aid/iid
/// map, as JSON text. Not part of the home: `homegate export` leaves it out.
extension SQLiteHomeStore {
    public func adapterState(_ key: String) throws(PersistenceError) -> String? {
        do {
            return try database.read { db in try String.fetchOne(db, sql: "SELECT value FROM adapter_state WHERE key = ?", arguments: [key]) }
        } catch {
            throw .failed(path: path, operation: "reading \(key)", reason: "\(error)")
        }
    }

    public func saveAdapterState(_ key: String, _ value: String) async throws(PersistenceError) {
        do {
            try await database.write { db in
                try db.execute(
                    sql: "INSERT INTO adapter_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key, value])
            }
        } catch {
            throw .failed(path: path, operation: "writing \(key)", reason: "\(error)")
        }
    }
}
