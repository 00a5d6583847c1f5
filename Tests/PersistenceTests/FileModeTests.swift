import Foundation
import Persistence
import Testing

@Suite("the database holds the HomeKit bridge's secret key: its files are the owner's alone")
struct FileModeTests {
    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("a new database, its -wal and -shm are made 0600, and nothing is said")
    func newDatabase() async throws {
        let path = temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let store = try SQLiteHomeStore(path: path)
        defer { store.close() }
        try await store.saveAdapterState("hap.pairing", "{}")
        #expect(store.fileMode == nil)
        #expect(try mode(path) == 0o600)
        for file in [path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(try mode(file) == 0o600, "\(file)")
        }
    }

    @Test("an existing 0644 database (and its -wal) is tightened to 0600 at open, and it says so once")
    func tightened() async throws {
        let path = temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let first = try SQLiteHomeStore(path: path)
        try await first.saveAdapterState("hap.pairing", "{}")
        first.close()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(FileManager.default.createFile(atPath: path + "-wal", contents: nil, attributes: [.posixPermissions: 0o644]))
        let store = try SQLiteHomeStore(path: path)
        #expect(store.fileMode == .tightened(path: path, from: 0o644))
        #expect(store.fileMode?.isSecured == true)
        #expect("\(store.fileMode!)".contains("mode 0644"))
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
        #expect(try store.adapterState("hap.pairing") == "{}")
        store.close()
        let again = try SQLiteHomeStore(path: path)
        defer { again.close() }
        #expect(again.fileMode == nil)
    }

    @Test("a reader (homegate export next to a running homegate) leaves the mode alone")
    func reader() async throws {
        let path = temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try SQLiteHomeStore(path: path).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let reader = try SQLiteHomeStore(path: path, access: .reader)
        defer { reader.close() }
        #expect(reader.fileMode == nil)
        #expect(try mode(path) == 0o640)
    }
}
