/// The answer to a command from inside the process (the HTTP API, HomeKit, Matter): what the core replied,
/// and whether the change it made is stored. Each front end renders it its own way.
public enum Answer: Sendable {
    /// It worked (and what it changed is stored).
    case done(HomeResult?)
    /// Refused, with why, and what was done anyway (the writes that went out, the last known value).
    case refused(HomeError, partial: HomeResult?)
    /// It worked, but the database could not store the change: why. It is kept, stored as soon as
    /// the database can be written, and lost if homegate stops before then.
    case notStored(HomeResult?, reason: String)

    public init(_ reply: Reply, unstored: String?) {
        if let error = reply.error {
            self = .refused(error, partial: reply.result)
        } else if let unstored {
            self = .notStored(reply.result, reason: unstored)
        } else {
            self = .done(reply.result)
        }
    }

    /// The result, whatever the outcome.
    public var result: HomeResult? {
        switch self {
        case .done(let result), .refused(_, let result), .notStored(let result, _): result
        }
    }

    public var error: HomeError? {
        if case .refused(let error, _) = self { error } else { nil }
    }

    public static let stopping = Answer.refused(HomeError(.busy, "homegate is stopping"), partial: nil)
}
