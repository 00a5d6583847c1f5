/// A front end's clients of the live streams (HTTP's, a HomeKit bridge's), handed each publish's
/// events on the publishing thread. `receive` must never wait: it hands the events on (to event
/// loops, to streams) and returns.
public protocol EventSink: AnyObject, Sendable {
    /// No client now: the broadcast hands an idle sink nothing.
    var isIdle: Bool { get }
    /// Every event of one publish, in order; each client keeps what its filter lets through.
    func receive(_ events: [StreamEvent])
    /// The gateway stops: every client's stream ends, and later clients end at once.
    func close()
    /// Clients now, clients cut off for falling behind, and events delivered, since the start.
    var counts: (clients: Int, dropped: Int, delivered: Int) { get }
}
