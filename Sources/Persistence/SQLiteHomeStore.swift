import Automation
import Foundation
import GRDB
public import GatewayCore
import HomeModel
import JSON

/// The home in SQLite: WAL mode, versioned migrations, one writer (this process, held by a lock file),
/// writes on GRDB's own queue so callers never block. One connection with a small page cache: the
/// gateway reads the database once, at start, and otherwise only writes.
public final class SQLiteHomeStore: HomeStore {
    public let path: String
    let database: DatabaseQueue
    private let lock: DatabaseLock?
    /// What opening did to the file's mode (as owner), for the opener to log: nil when it was 0600 already.
    public let fileMode: DatabaseFileMode?

    public enum Access: Sendable {
        /// The one process that writes: takes the lock, creates and migrates the file.
        case owner
        /// Reads only, next to a running gateway (`homegate export`): no lock, no migration, and a
        /// file that is not a homegate database is refused rather than changed.
        case reader
    }

    /// Opens (as owner: creating the file and its folder if needed, and migrating).
    public init(path: String, access: Access = .owner) throws(PersistenceError) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if access == .owner, !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .cannotOpen(path: path, reason: "cannot create the folder \(folder): \(error.localizedDescription)")
            }
        }
        lock = access == .owner ? try DatabaseLock(databasePath: path) : nil
        fileMode = access == .owner ? DatabaseFileMode.secure(databasePath: path) : nil
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.readonly = access == .reader
        configuration.prepareDatabase { db in
            // WAL lets `homegate export` read while the gateway writes; with NORMAL a commit is in
            // the log before it returns, so a killed process loses nothing it was told was stored.
            if access == .owner {
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            try db.execute(sql: "PRAGMA cache_size = -1024")
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
        let migrator = Schema.migrator
        do {
            if try database.read({ try migrator.hasBeenSuperseded($0) }) { throw PersistenceError.newerSchema(path: path) }
            if access == .owner {
                try migrator.migrate(database)
            } else if try !database.read({ try migrator.hasCompletedMigrations($0) }) {
                throw PersistenceError.cannotOpen(path: path, reason: "not a homegate database (or one no homegate has opened yet)")
            }
        } catch let error as PersistenceError {
            throw error
        } catch {
            throw .cannotOpen(path: path, reason: "migrating the schema: \(error)")
        }
    }

    /// Closes the database and lets go of the lock, when the gateway stops: whoever opens it next,
    /// in this process or another, finds it free without waiting for this object to be released.
    public func close() {
        try? database.close()
        lock?.release()
    }

    /// SQLite's own check of the file: "ok" or what is wrong.
    public func integrityCheck() throws(PersistenceError) -> String {
        do {
            return try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
        } catch {
            throw .failed(path: path, operation: "integrity check", reason: "\(error)")
        }
    }

    public func write(_ batch: StoreBatch) async throws(PersistenceError) {
        guard !batch.isEmpty else { return }
        do {
            try await database.write { db in try Self.apply(batch, to: db) }
        } catch {
            throw .failed(path: path, operation: "writing", reason: "\(error)")
        }
    }

    /// Replaces everything with `home` in one transaction (an import).
    public func replaceAll(with home: StoredHome) throws(PersistenceError) {
        do {
            try database.write { db in try Self.apply(home.batch, to: db) }
        } catch {
            throw .failed(path: path, operation: "import", reason: "\(error)")
        }
    }

    /// Whether no home has been stored yet.
    public func isEmpty() throws(PersistenceError) -> Bool {
        do {
            return try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM homes") ?? 0 } == 0
        } catch {
            throw .failed(path: path, operation: "reading", reason: "\(error)")
        }
    }
}
