import Synchronization

/// A bridge's share of the event broadcast (the HomeKit bridge's, the Matter bridge's), as the
/// WebSocket fan-out has its own: each publish's events that `wanted` keeps, handed over on the
/// publishing thread without waiting, gathered until the bridge takes them as one batch (`take`). A
/// bridge that falls `capacity` events behind loses them and lays itself out again from a snapshot;
/// its controllers miss those events, as they would over a lost connection.
public final class PeerEventFeed: EventSink {
    private struct State {
        var events: [HomeEvent] = []
        /// Events were dropped since the last batch: the values must come from a snapshot.
        var overflowed = false
        /// Told that events wait, while the bridge serves; holds one wake-up at most, so a burst
        /// wakes the bridge once.
        var wake: AsyncStream<Void>.Continuation?
        var closed = false
        var dropped = 0
        var delivered = 0
    }

    public let capacity: Int
    private let wanted: @Sendable (HomeEvent) -> Bool
    private let state = Mutex(State())

    /// `wanted`: the events the bridge follows; the rest of the tree comes with `TreeChanges` and a snapshot.
    public init(capacity: Int, wanted: @escaping @Sendable (HomeEvent) -> Bool) {
        self.capacity = capacity
        self.wanted = wanted
    }

    /// The bridge's values follow the events from now on: each element of the stream means events
    /// wait for `take`. The stream ends with `stop` or when the gateway stops.
    public func start() -> AsyncStream<Void> {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let previous = state.withLock { state -> AsyncStream<Void>.Continuation? in
            guard !state.closed else { return wake }
            defer { state.wake = wake }
            return state.wake
        }
        previous?.finish()
        return wakes
    }

    /// The bridge has stopped serving: nothing is kept until it starts again.
    public func stop() {
        let wake = state.withLock { state in
            defer { (state.wake, state.events, state.overflowed) = (nil, [], false) }
            return state.wake
        }
        wake?.finish()
    }

    /// Everything gathered since the last call, and whether some was dropped.
    public func take() -> (events: [HomeEvent], overflowed: Bool) {
        state.withLock { state in
            defer { (state.events, state.overflowed) = ([], false) }
            state.delivered += state.events.count
            return (state.events, state.overflowed)
        }
    }

    // MARK: EventSink

    /// Idle while the bridge is not serving: the broadcast then hands it nothing.
    public var isIdle: Bool { state.withLock { $0.wake == nil } }

    public func receive(_ events: [StreamEvent]) {
        let wanted = events.lazy.map(\.event).filter(wanted)
        guard !wanted.isEmpty else { return }
        let wake = state.withLock { state -> AsyncStream<Void>.Continuation? in
            guard state.wake != nil else { return nil }
            state.events.append(contentsOf: wanted)
            if state.events.count > capacity {
                state.dropped += 1
                (state.events, state.overflowed) = ([], true)
            }
            return state.wake
        }
        wake?.yield()
    }

    public func close() {
        let wake = state.withLock { state in
            state.closed = true
            defer { state.wake = nil }
            return state.wake
        }
        wake?.finish()
    }

    /// The bridge counts as one client of the live streams while it serves.
    public var counts: (clients: Int, dropped: Int, delivered: Int) {
        state.withLock { ($0.wake == nil ? 0 : 1, $0.dropped, $0.delivered) }
    }
}
