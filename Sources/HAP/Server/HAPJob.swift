/// A request handed from a connection's event loop to the server's task group.
struct HAPJob: Sendable {
    let request: HAPRequest
    let state: HAPConnectionState
    let complete: @Sendable (HAPOutcome) -> Void
}
