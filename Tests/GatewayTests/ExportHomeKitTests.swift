import Foundation
import GatewayCore
import MosquittoTesting
import Persistence
import Testing

@Suite("homegate export --include-homekit: a move to another machine keeps Apple Home paired")
struct ExportHomeKitTests {
    static let home = """
        homes:
        - id: home
          name: Home
          default_room: default_room
          rooms:
          - {id: default_room, name: Default Room}
          - {id: hall, name: Hall}
        accessories:
          lamp: {room: hall}
        """

    /// What a bridge that has paired keeps (opaque to export and import: JSON text by key).
    static let pairing =
        #"{"configurationNumber":4,"deviceID":"AA:BB:CC:DD:EE:01","longTermSecretKey":"c2VjcmV0LWtleS1ieXRlcy0wMTIzNDU2Nzg5YWJjZGVm","pairings":[{"controllerID":"phone","isAdmin":true,"publicKey":"AAAA"}],"setupCode":"031-45-154","setupID":"ABCD"}"#
    static let identifiers = #"{"accessories":{"lamp":{"aid":2,"bridge":0}},"nextAID":[3]}"#

    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-export-hk-\(UUID().uuidString)")
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    /// A database with the home and a paired bridge's state.
    func pairedDatabase(_ folder: Folder) async throws -> String {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        try Self.home.write(toFile: folder.path("home.yaml"), atomically: true, encoding: .utf8)
        let path = folder.path("old.sqlite")
        #expect(try await homegate(["import", folder.path("home.yaml"), "--database", path]).status == 0)
        let store = try SQLiteHomeStore(path: path)
        try await store.saveAdapterState("hap.pairing", Self.pairing)
        try await store.saveAdapterState("hap.identifiers", Self.identifiers)
        store.close()
        return path
    }

    func homekitState(_ path: String) throws -> [String: String] {
        let store = try SQLiteHomeStore(path: path, access: .reader)
        defer { store.close() }
        return try store.adapterStates()
    }

    @Test("by default the export leaves the bridge's state out and stays format 1, which every homegate reads")
    func leftOutByDefault() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let path = try await pairedDatabase(folder)
        let export = try await homegate(["export", "--database", path, "--output", folder.path("out.yaml")])
        #expect(export.status == 0, "\(export.output)")
        let text = try String(contentsOfFile: folder.path("out.yaml"), encoding: .utf8)
        #expect(text.contains("homegate_export: 1"))
        #expect(!text.contains("homekit") && !text.contains("longTermSecretKey") && !text.contains("AA:BB:CC"))
    }

    @Test("with --include-homekit the file is 0600, format 2, and an import onto an empty database restores keys, pairings and aids")
    func roundTrip() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let path = try await pairedDatabase(folder)
        let out = folder.path("move.yaml")
        let export = try await homegate(["export", "--database", path, "--output", out, "--include-homekit"])
        #expect(export.status == 0, "\(export.output)")
        #expect(export.output.contains("the export holds the HomeKit bridge's secret key and pairings: keep it private"))
        let mode = (try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("homegate_export: 2") && text.contains("homekit:"))

        let moved = folder.path("new.sqlite")
        let restore = try await homegate(["import", out, "--database", moved])
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("restored the HomeKit bridge's state (1 bridge, 1 pairing)"), "\(restore.output)")
        #expect(try homekitState(moved) == ["hap.pairing": Self.pairing, "hap.identifiers": Self.identifiers])
        // The home came along too, and exports the same again.
        let again = try await homegate(["export", "--database", moved, "--output", folder.path("again.yaml"), "--include-homekit"])
        #expect(again.status == 0)
        let first = text.split(separator: "\n").dropFirst(2)
        let second = try String(contentsOfFile: folder.path("again.yaml"), encoding: .utf8).split(separator: "\n").dropFirst(2)
        #expect(Array(first) == Array(second))
    }

    @Test("over a database with a bridge of its own: refused (nothing imported) unless --replace, which says what it replaced")
    func overAnotherBridge() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let path = try await pairedDatabase(folder)
        let out = folder.path("move.yaml")
        #expect(try await homegate(["export", "--database", path, "--output", out, "--include-homekit"]).status == 0)
        let target = folder.path("target.sqlite")
        let theirs = Self.pairing.replacingOccurrences(of: "AA:BB:CC:DD:EE:01", with: "AA:BB:CC:DD:EE:02")
        let store = try SQLiteHomeStore(path: target)
        try await store.saveAdapterState("hap.pairing", theirs)
        store.close()

        let refused = try await homegate(["import", out, "--database", target])
        #expect(refused.status == 1)
        #expect(refused.output.contains("has a HomeKit bridge of its own (1 bridge, 1 pairing)"), "\(refused.output)")
        #expect(refused.output.contains("Add --replace"))
        #expect(try homekitState(target) == ["hap.pairing": theirs])
        let reader = try SQLiteHomeStore(path: target, access: .reader)
        #expect(try reader.isEmpty())
        reader.close()

        let replaced = try await homegate(["import", out, "--database", target, "--replace"])
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(replaced.output.contains("replaced the HomeKit bridge state the database had (1 bridge, 1 pairing)"), "\(replaced.output)")
        #expect(try homekitState(target) == ["hap.pairing": Self.pairing, "hap.identifiers": Self.identifiers])
    }

    @Test("an export without the bridge's state keeps the one the database has; an edited homekit section is refused with where")
    func keepsAndChecks() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let path = try await pairedDatabase(folder)
        let plain = try await homegate(["import", folder.path("home.yaml"), "--database", path, "--replace"])
        #expect(plain.status == 0)
        #expect(plain.output.contains("kept the database's HomeKit bridge state"), "\(plain.output)")
        #expect(try homekitState(path)["hap.pairing"] == Self.pairing)

        try (Self.home + "\nhomekit:\n  hap.pairing: not json\n  other: '{}'\n").write(
            toFile: folder.path("bad.yaml"), atomically: true, encoding: .utf8)
        let bad = try await homegate(["import", folder.path("bad.yaml"), "--database", folder.path("empty.sqlite")])
        #expect(bad.status == 1)
        #expect(bad.output.contains("homekit.hap.pairing: not the JSON object homegate export wrote"), "\(bad.output)")
        #expect(bad.output.contains("homekit.other: not a HomeKit key"), "\(bad.output)")
        #expect(bad.output.contains("nothing was imported"))
    }
}
