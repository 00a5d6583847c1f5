import Foundation
import MosquittoTesting
import Testing

/// `homegate import` where the user runs it: a folder of their own, the export on standard input.
@Suite("homegate import says where it imported, and does not guess")
struct ImportCommandTests {
    static let export = """
        homes:
        - id: home
          name: Home
          default_room: default_room
          rooms:
          - {id: default_room, name: Default Room}
          - {id: kitchen, name: Kitchen}
        """

    /// Runs `command` with sh in `folder`, homegate as $HOMEGATE, no HOMEGATE_* settings.
    func shell(_ command: String, in folder: URL) async throws -> (status: Int32, output: String) {
        let output = folder.appendingPathComponent("out-\(UUID().uuidString)").path
        let pid = try spawn(
            ["/bin/sh", "-c", "cd \"$FOLDER\" && \(command)"], output: output,
            environment: ["HOMEGATE": homegateExecutable, "FOLDER": folder.path, "PATH": "/usr/bin:/bin"])
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        defer { try? FileManager.default.removeItem(atPath: output) }
        return (status >> 8, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.export.write(to: folder.appendingPathComponent("home.yaml"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test("without --config or --database, where no database is, it refuses and makes nothing")
    func refusesTheDefaultWhereThereIsNone() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await shell("\"$HOMEGATE\" import home.yaml --replace", in: folder)
        #expect(result.status == 1)
        #expect(
            result.output.contains(
                "homegate: there is no database at \(folder.path)/data/homegate.sqlite (the default, ./data/homegate.sqlite of this folder); nothing was imported"
            ),
            "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data").path))
    }

    @Test("- reads the export from standard input, and the answer names the database by its full path")
    func standardInput() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.appendingPathComponent("home.yaml").path)
        let result = try await shell("\"$HOMEGATE\" import - --database restored.sqlite < home.yaml", in: folder)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("\(folder.path)/restored.sqlite: imported 1 home(s), 2 room(s)"), "\(result.output)")

        let broken = try await shell("echo 'homes: [' | \"$HOMEGATE\" import - --database other.sqlite", in: folder)
        #expect(broken.status == 1)
        #expect(broken.output.contains("standard input:"), "\(broken.output)")
        #expect(broken.output.contains("homegate: nothing was imported"), "\(broken.output)")
    }
}
