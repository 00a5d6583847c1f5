import Foundation
import Testing

@Suite("homegate import refuses a file whose aliases would expand without bound", .timeLimit(.minutes(1)))
struct ArchiveLimitTests {
    @Test("an export with nine levels of nine aliases is refused at once, and nothing is imported")
    func aliasBomb() async throws {
        var lines = [
            "homes:", "  - name: Home", "    rooms:",
            "      - &l0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]",
        ]
        for level in 1...9 {
            lines.append("      - &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ",") + "]")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("bomb.yaml").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let database = folder.appendingPathComponent("homegate.sqlite").path
        let result = try await homegate(["import", file, "--database", database])
        #expect(result.status == 1)
        #expect(
            result.output.contains("bomb.yaml: the file holds more than 5,000,000 values once its aliases (*name) are expanded"),
            "\(result.output)")
        #expect(result.output.contains("nothing was imported"))
    }
}
