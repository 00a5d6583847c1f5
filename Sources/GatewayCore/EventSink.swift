/// Clients that take events in bulk, on the publishing thread: the WebSocket clients, which hand
/// each publish's events to their connections' event loops at once. `receive` must never wait.
public protocol EventSink: AnyObject, Sendable {
    /// No client now: the hub reads no topic for an idle sink.
    var isIdle: Bool { get }
    /// Every event of one publish, in order; each client keeps what its filter lets through.
    func receive(_ events: [StreamEvent])
    /// The gateway stops: every client's stream ends, and later clients end at once.
    func close()
    /// Clients now, clients cut off for falling behind, and events delivered, since the start.
    var counts: (clients: Int, dropped: Int, delivered: Int) { get }
}
