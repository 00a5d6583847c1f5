/// Why an action set or a trigger is refused: what was wrong and where (`events[0].for: ...`).
public struct AutomationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    /// The offending field's path (`events[0].for`), when the error is about one.
    public var field: String?

    public init(_ description: String) { self.description = description }

    init(at path: String, _ problem: String) {
        description = path.isEmpty ? problem : "\(path): \(problem)"
        field = path.isEmpty ? nil : path
    }
}
