import GatewayCore
import Synchronization

/// A bridge's share of the event broadcast, as the WebSocket fan-out has its own: each publish's value
/// and reachability events handed over on the publishing thread without waiting, gathered until the
/// bridge takes them as one batch (`take`). A bridge that falls `capacity` events behind loses them
/// and lays itself out again from a snapshot; its controllers miss those events, as they would
/// over a lost connection.
final class BridgeEventFeed: EventSink {
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

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The bridge's values follow the events from now on: each element of the stream means events
    /// wait for `take`. The stream ends with `stop` or when the gateway stops.
    func start() -> AsyncStream<Void> {
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
    func stop() {
        let wake = state.withLock { state in
            defer { (state.wake, state.events, state.overflowed) = (nil, [], false) }
            return state.wake
        }
        wake?.finish()
    }

    /// Everything gathered since the last call, and whether some was dropped.
    func take() -> (events: [HomeEvent], overflowed: Bool) {
        state.withLock { state in
            defer { (state.events, state.overflowed) = ([], false) }
            state.delivered += state.events.count
            return (state.events, state.overflowed)
        }
    }

    // MARK: EventSink

    /// Idle while the bridge is not serving: the broadcast then hands it nothing.
    var isIdle: Bool { state.withLock { $0.wake == nil } }

    func receive(_ events: [StreamEvent]) {
        let wanted = events.lazy.map(\.event).filter(Self.wanted)
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

    func close() {
        let wake = state.withLock { state in
            state.closed = true
            defer { state.wake = nil }
            return state.wake
        }
        wake?.finish()
    }

    /// The bridge counts as one client of the live streams while it serves.
    var counts: (clients: Int, dropped: Int, delivered: Int) {
        state.withLock { ($0.wake == nil ? 0 : 1, $0.dropped, $0.delivered) }
    }

    /// Value changes, reachability and services renamed (their ConfiguredName is evented): the rest
    /// of the tree comes with `TreeChanges` and a snapshot.
    private static func wanted(_ event: HomeEvent) -> Bool {
        switch event {
        case .characteristic, .accessory(_, .reachability, _), .accessory(_, .serviceRenamed, _): true
        default: false
        }
    }
}
