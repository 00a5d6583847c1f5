import Foundation
import Gateway
import Testing

@Suite("homegate's version")
struct VersionTests {
    @Test("HomegateVersion is CHANGELOG.md's latest release heading")
    func matchesChangelog() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        // "## [0.7.0] - unreleased" or "## [0.6.0] - 2026-11-26": the first one is the release being made.
        let heading = try #require(
            changelog.split(separator: "\n").first { $0.hasPrefix("## [") }, "CHANGELOG.md has no '## [x.y.z]' heading")
        let version = heading.dropFirst(4).prefix { $0 != "]" }
        #expect(String(version) == HomegateVersion.number, "CHANGELOG.md: \(heading)")
    }
}
