import Foundation
import JSON

/// "its setup and keys, 24 endpoint numbers": what an export's (or a database's) Matter bridge state amounts to, for people.
struct MatterSummary: CustomStringConvertible {
    let hasSetup: Bool
    let endpoints: Int

    init(_ states: [String: String]) {
        hasSetup = states["matter.setup"] != nil
        endpoints = states["matter.endpoints"].flatMap { try? JSONValue(parsing: $0) }?["endpoints"]?.objectValue?.count ?? 0
    }

    var description: String {
        "\(hasSetup ? "its setup and keys" : "no setup"), \(endpoints) endpoint number\(endpoints == 1 ? "" : "s")"
    }

    /// The Matter bridge's rows of `adapter_state`.
    static func isMatter(_ key: String) -> Bool { key.hasPrefix("matter.") }
}
