import Foundation
import GRDB
import GRDBSQLite
import GatewayCore

extension SQLiteHomeStore {
    /// A bridge's lists, or nil to forget them. The text is bound where it lies (SQLite would
    /// otherwise copy it for the statement, and a `String` of it is one more copy): with 10,000
    /// devices each copy is tens of megabytes while the tree goes out.
    static func write(_ inventory: StoredInventory?, base: String, to db: Database) throws {
        guard let inventory else {
            try db.execute(sql: "DELETE FROM zigbee2mqtt_inventory WHERE base_topic = ?", arguments: [base])
            return
        }
        let sql = """
            INSERT INTO zigbee2mqtt_inventory (base_topic, devices, groups, updated) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(base_topic) DO UPDATE SET devices = excluded.devices, groups = excluded.groups, updated = excluded.updated
            """
        let connection = db.sqliteConnection
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(connection, sql, -1, &statement, nil), db, sql)
        defer { sqlite3_finalize(statement) }
        let devices = inventory.devicesText
        let groups = inventory.groupsText
        let code = devices.withUnsafeBufferPointer { devices in
            bindText(statement, 2, devices)
            return withOptionalBuffer(groups) { groups in
                if let groups { bindText(statement, 3, groups) } else { sqlite3_bind_null(statement, 3) }
                sqlite3_bind_text(statement, 1, base, -1, transient)
                sqlite3_bind_double(statement, 4, Date().timeIntervalSince1970)
                return sqlite3_step(statement)
            }
        }
        try check(code == SQLITE_DONE ? SQLITE_OK : code, db, sql)
    }

    /// Bound without a copy (no destructor: SQLite's "static"): valid until the statement steps.
    private static func bindText(_ statement: OpaquePointer?, _ index: Int32, _ text: UnsafeBufferPointer<UInt8>) {
        let bytes = UnsafeRawPointer(text.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
        sqlite3_bind_text64(statement, index, bytes, sqlite3_uint64(text.count), nil, UInt8(SQLITE_UTF8))
    }

    private static func withOptionalBuffer<R>(_ bytes: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard let bytes else { return body(nil) }
        return bytes.withUnsafeBufferPointer { body($0) }
    }

    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    private static func check(_ code: Int32, _ db: Database, _ sql: String) throws {
        guard code != SQLITE_OK else { return }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
    }
}
