/// A response and what the request changes on its connection, applied on the event loop.
struct HAPOutcome: Sendable {
    var response: HAPResponse
    /// Replaces the connection's state (subscriptions, prepared write, pending verify).
    var state: HAPConnectionState?
    /// Pair-verify succeeded: encrypt everything after this response.
    var sessionKeys: HAPSessionKeys?
    var closeAfterResponse = false

    init(_ response: HAPResponse, state: HAPConnectionState? = nil) {
        self.response = response
        self.state = state
    }
}
