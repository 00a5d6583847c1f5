public import JSON

/// The answer to a command from inside the process (the HTTP API): what an MQTT reply's `data`
/// would hold, the error with its kind and field, and, when the change was made but could not be
/// stored, why. Rendered in the gateway so every front end answers with the same JSON.
public struct LocalAnswer: Sendable {
    /// Which command it answers (`GatewayAccess.perform` hands them out).
    public let id: UInt64
    /// The result, as the MQTT reply's `data`; for writes also when some failed (one result each).
    public var data: JSONValue?
    public var error: HomeError?
    /// The change is made but the database could not store it: why.
    public var unstored: String?

    public init(id: UInt64, data: JSONValue? = nil, error: HomeError? = nil, unstored: String? = nil) {
        self.id = id
        self.data = data
        self.error = error
        self.unstored = unstored
    }

    /// The same answer for a change that could not be stored.
    func unstored(because reason: String) -> LocalAnswer {
        guard error == nil else { return self }
        var answer = self
        answer.unstored = reason
        return answer
    }
}
