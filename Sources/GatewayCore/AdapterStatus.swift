public import JSON

/// What a front end says of itself in the health report (`request/health`, `/readyz`, `homegate
/// health`): a section under its own name, and warnings: lines for a person about something that
/// works less well than it should, but does not make the gateway unready.
public struct AdapterStatus: Sendable, Equatable {
    public var section: JSONValue
    public var warnings: [String]

    public init(section: JSONValue, warnings: [String] = []) {
        self.section = section
        self.warnings = warnings
    }
}
