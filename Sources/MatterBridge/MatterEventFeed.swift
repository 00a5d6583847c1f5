import GatewayCore
import Synchronization

/// The Matter bridge's share of the event hub, as the HomeKit bridge's: each publish's value and
/// reachability events handed over on the publishing thread without waiting, gathered until the
/// bridge takes them as one batch. Fallen `capacity` events behind, it drops them and the bridge
/// lays itself out again from a snapshot.
final class MatterEventFeed: EventSink {
    private struct State {
        var events: [HomeEvent] = []
        var overflowed = false
        /// One wake-up at most is held, so a burst wakes the bridge once.
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

    /// Each element of the stream means events wait for `take`; it ends with `stop` or when the gateway stops.
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

    func stop() {
        let wake = state.withLock { state in
            defer { (state.wake, state.events, state.overflowed) = (nil, [], false) }
            return state.wake
        }
        wake?.finish()
    }

    func take() -> (events: [HomeEvent], overflowed: Bool) {
        state.withLock { state in
            defer { (state.events, state.overflowed) = ([], false) }
            state.delivered += state.events.count
            return (state.events, state.overflowed)
        }
    }

    // MARK: EventSink

    var isIdle: Bool { state.withLock { $0.wake == nil } }

    func receive(_ events: [StreamEvent]) {
        let wanted = events.lazy.map(\.event).filter {
            switch $0 {
            case .characteristic, .accessory(_, .reachability, _): true
            default: false
            }
        }
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

    var counts: (clients: Int, dropped: Int, delivered: Int) {
        state.withLock { ($0.wake == nil ? 0 : 1, $0.dropped, $0.delivered) }
    }
}
