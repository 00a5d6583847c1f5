import Foundation
import GatewayCore
import MosquittoTesting
import Persistence
import Testing

@Suite("homegate export --include-matter: a move to another machine keeps every ecosystem's Matter bridge")
struct ExportMatterTests {
    /// What a commissioned Matter bridge keeps (opaque to export and import: base64 TLV and JSON text by key).
    static let matter = [
        "matter.node": "FTYBFSQBARgYJAMAGA==",
        "matter.setup": #"{"dac":[48,130],"dacKey":"-----BEGIN PRIVATE KEY-----","discriminator":3850,"passcode":20202021,"salt":[1,2]}"#,
        "matter.endpoints": #"{"endpoints":{"lamp\/lightbulb":2},"next":3}"#,
    ]

    func database(_ folder: ExportHomeKitTests.Folder, name: String, states: [String: String]) async throws -> String {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        try ExportHomeKitTests.home.write(toFile: folder.path("home.yaml"), atomically: true, encoding: .utf8)
        let path = folder.path(name)
        #expect(try await homegate(["import", folder.path("home.yaml"), "--database", path]).status == 0)
        let store = try SQLiteHomeStore(path: path)
        for (key, value) in states { try await store.saveAdapterState(key, value) }
        store.close()
        return path
    }

    func states(_ path: String) throws -> [String: String] {
        let store = try SQLiteHomeStore(path: path, access: .reader)
        defer { store.close() }
        return try store.adapterStates()
    }

    @Test("with --include-matter (and --include-homekit) the file is 0600, format 2, and an import restores the bridges' state")
    func roundTrip() async throws {
        let folder = ExportHomeKitTests.Folder()
        defer { folder.remove() }
        let both = Self.matter.merging(["hap.pairing": ExportHomeKitTests.pairing]) { $1 }
        let path = try await database(folder, name: "old.sqlite", states: both)
        let plain = try await homegate(["export", "--database", path, "--output", folder.path("plain.yaml")])
        let plainText = try String(contentsOfFile: folder.path("plain.yaml"), encoding: .utf8)
        #expect(plain.status == 0 && !plainText.contains("matter"))

        let out = folder.path("move.yaml")
        let export = try await homegate(["export", "--database", path, "--output", out, "--include-matter", "--include-homekit"])
        #expect(export.status == 0, "\(export.output)")
        #expect(export.output.contains("the export holds the Matter bridge's keys and fabrics: keep it private"))
        let mode = (try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("homegate_export: 2") && text.contains("\nmatter:\n") && text.contains("\nhomekit:\n"))

        let moved = folder.path("new.sqlite")
        let restore = try await homegate(["import", out, "--database", moved])
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("restored the Matter bridge's state (its setup and keys, 1 endpoint number)"), "\(restore.output)")
        #expect(try states(moved) == both)
    }

    @Test("over a database with a Matter bridge of its own: refused unless --replace; an edited section is refused with where")
    func refusals() async throws {
        let folder = ExportHomeKitTests.Folder()
        defer { folder.remove() }
        let path = try await database(folder, name: "old.sqlite", states: Self.matter)
        let out = folder.path("move.yaml")
        #expect(try await homegate(["export", "--database", path, "--output", out, "--include-matter"]).status == 0)
        let other = try await database(folder, name: "other.sqlite", states: ["matter.setup": #"{"passcode":1}"#])
        let replaced = try await homegate(["import", out, "--database", other, "--replace"])
        #expect(replaced.status == 0, "--replace replaces it: \(replaced.output)")
        #expect(try states(other) == Self.matter)
        // A database with no home yet, but a bridge of its own (homegate ran there with matter.enabled).
        let another = folder.path("another.sqlite")
        let store = try SQLiteHomeStore(path: another)
        try await store.saveAdapterState("matter.setup", #"{"passcode":1}"#)
        store.close()
        let kept = try await homegate(["import", out, "--database", another])
        #expect(kept.status == 1 && kept.output.contains("has a Matter bridge of its own"), "\(kept.output)")
        #expect(try states(another) == ["matter.setup": #"{"passcode":1}"#])

        let edited = try String(contentsOfFile: out, encoding: .utf8).replacingOccurrences(of: "FTYBFSQBARgYJAMAGA==", with: "not base64!")
        try edited.write(toFile: folder.path("edited.yaml"), atomically: true, encoding: .utf8)
        let bad = try await homegate(["import", folder.path("edited.yaml"), "--database", folder.path("fresh.sqlite")])
        #expect(bad.status == 1 && bad.output.contains("matter.matter.node: not the base64 text homegate export wrote"), "\(bad.output)")
    }
}
