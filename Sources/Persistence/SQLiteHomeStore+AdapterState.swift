import GRDB
public import GatewayCore

/// What a front end keeps for itself, by key: the HomeKit bridge's identity, pairings and aid/iid
/// map, as JSON text. Not part of the home: `homegate export` leaves it out unless asked
/// (`--include-homekit`, to move homegate to another machine without pairing again).
extension SQLiteHomeStore {
    public func adapterState(_ key: String) throws(PersistenceError) -> String? {
        do {
            return try database.read { db in try String.fetchOne(db, sql: "SELECT value FROM adapter_state WHERE key = ?", arguments: [key])
            }
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

    /// Every key and value, for `homegate export --include-homekit`.
    public func adapterStates() throws(PersistenceError) -> [String: String] {
        do {
            return try database.read { db in
                var values: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT key, value FROM adapter_state") { values[row["key"]] = row["value"] }
                return values
            }
        } catch {
            throw .failed(path: path, operation: "reading the adapter state", reason: "\(error)")
        }
    }

    /// Replaces everything with `home`, and the adapter state with `adapterState` (every key: what
    /// is not in it goes), in one transaction: an import that carries the HomeKit bridge's state.
    public func replaceAll(with home: StoredHome, adapterState: [String: String]) throws(PersistenceError) {
        do {
            try database.write { db in
                try Self.apply(home.batch, to: db)
                try db.execute(sql: "DELETE FROM adapter_state")
                for (key, value) in adapterState.sorted(by: { $0.key < $1.key }) {
                    try db.execute(sql: "INSERT INTO adapter_state (key, value) VALUES (?, ?)", arguments: [key, value])
                }
            }
        } catch {
            throw .failed(path: path, operation: "import", reason: "\(error)")
        }
    }
}
