import Foundation
import Gateway

/// `homegate --version`: the release, and the commit it was built from where the build recorded it
/// (the container image writes it to /usr/local/share/homegate/commit from its HOMEGATE_COMMIT build argument).
enum Version {
    static var number: String { HomegateVersion.number }

    static var description: String {
        let commit = (try? String(contentsOfFile: "/usr/local/share/homegate/commit", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return commit.map { $0.isEmpty ? number : "\(number) (commit \($0))" } ?? number
    }
}
