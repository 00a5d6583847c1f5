import Synchronization

/// "The accessory tree changed", for the front ends in the process: the same steps that MQTT's
/// retained tree message (`<base>/accessories`) goes out for (accessories added, removed, renamed,
/// moved or changed in their services; a mapping reload; a reconnect), and homes, rooms and zones
/// changing (a selector by room name may then select other accessories). The runtime raises the
/// generation once per such step; a subscriber hears the newest generation, and a slow one hears
/// only the last of several: it wants to know that the tree changed since it last looked, not how
/// often.
public final class TreeChanges: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var subscribers: [UInt64: AsyncStream<UInt64>.Continuation] = [:]
        var next: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// Keeps generations in order for every subscriber when two raises meet.
    private let raising = Mutex(())

    public init() {}

    /// How many steps have changed the tree since the start.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// The generations raised from now on, the newest only when several came while the reader was
    /// busy; ends when the gateway stops.
    public func subscribe() -> AsyncStream<UInt64> {
        let (stream, continuation) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            state.next += 1
            state.subscribers[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// A step changed the tree. Yields outside the lock: a stream whose reader is cancelled runs
    /// `onTermination` under its own lock, and that takes this one (two threads, each holding the
    /// lock the other wants, would deadlock).
    public func raise() {
        raising.withLock { _ in
            let (generation, subscribers) = state.withLock { state in
                state.generation += 1
                return (state.generation, Array(state.subscribers.values))
            }
            for subscriber in subscribers { subscriber.yield(generation) }
        }
    }

    /// The gateway stops: every subscription ends, and later ones end at once.
    public func close() {
        let subscribers = state.withLock { state in
            state.closed = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
