import Synchronization

/// Hands every event of the home to the live streams' front ends (HTTP's SSE and WebSocket
/// clients; the HomeKit bridges; the Matter bridge), each an `EventSink` that keeps its own clients and their
/// buffers. Publishing with no client costs one lock and a look at each sink; each event's JSON is
/// written once in the step, for all of them and for MQTT.
public final class EventBroadcast: Sendable {
    private struct State {
        var sinks: [any EventSink] = []
        var closed = false
    }

    private let state = Mutex(State())
    /// Keeps one call's events together and in order for every sink when two calls meet.
    private let publishing = Mutex(())
    /// How many events a client may fall behind before it is cut off.
    public let capacity: Int

    public init(capacity: Int = 1_000) {
        self.capacity = capacity
    }

    /// Adds a front end's clients; closed with the broadcast (at once when it is closed already).
    public func attach(_ sink: any EventSink) {
        let closed = state.withLock { state in
            if !state.closed { state.sinks.append(sink) }
            return state.closed
        }
        if closed { sink.close() }
    }

    /// Clients now, clients cut off for falling behind, and events delivered, since the start.
    public var counts: (clients: Int, dropped: Int, delivered: Int) {
        var total = (clients: 0, dropped: 0, delivered: 0)
        for sink in state.withLock({ $0.sinks }) {
            let counts = sink.counts
            total = (total.clients + counts.clients, total.dropped + counts.dropped, total.delivered + counts.delivered)
        }
        return total
    }

    /// A step's events, their JSON written once in the step (`HomeMachine.Output.events`), the same
    /// bytes as MQTT's: nothing is written again, and an idle sink is passed by.
    public func publish(_ events: [StreamEvent]) {
        guard !events.isEmpty else { return }
        publishing.withLock { _ in
            for sink in state.withLock({ $0.sinks }) where !sink.isIdle { sink.receive(events) }
        }
    }

    /// Ends every client's stream (the gateway is stopping); sinks attached later are closed at once.
    public func close() {
        let sinks = state.withLock { state in
            state.closed = true
            defer { state.sinks = [] }
            return state.sinks
        }
        for sink in sinks { sink.close() }
    }
}
