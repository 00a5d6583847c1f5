public import Foundation
import Automation
import HomeModel
import JSON
import Synchronization

/// Hands every event of the home to the clients of the live streams (HTTP's SSE and WebSocket; HomeKit).
/// Each client has a buffer of its own; one that falls `capacity` events behind is cut off (its
/// stream ends) rather than slowing the gateway or the other clients. Publishing with no client
/// costs one lock and a look at each sink.
public final class EventHub: Sendable {
    private struct Client {
        var filter: EventFilter
        var continuation: AsyncStream<StreamEvent>.Continuation
    }

    private struct State {
        var clients: [UInt64: Client] = [:]
        var sinks: [any EventSink] = []
        var next: UInt64 = 0
        var closed = false
        /// Clients cut off for falling behind, since the start.
        var dropped = 0
        var delivered = 0
    }

    private let state = Mutex(State())
    private let publishing = Mutex(())
    public let capacity: Int

    public init(capacity: Int = 1_000) {
        self.capacity = capacity
    }

    /// A stream of the events that match `filter`, until the client stops reading it, falls
    /// behind, or the hub closes.
    public func subscribe(_ filter: EventFilter) -> AsyncStream<StreamEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: StreamEvent.self, bufferingPolicy: .bufferingOldest(capacity))
        let id = state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            state.next += 1
            state.clients[state.next] = Client(filter: filter, continuation: continuation)
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    private func remove(_ id: UInt64) { _ = state.withLock { $0.clients.removeValue(forKey: id) } }

    /// Adds clients that take events in bulk (see `EventSink`); closed with the hub.
    public func attach(_ sink: any EventSink) {
        let closed = state.withLock { state in
            if !state.closed { state.sinks.append(sink) }
            return state.closed
        }
        if closed { sink.close() }
    }

    /// True once the gateway is stopping: streams that end now were not cut off.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// A client its stream's reader cut off for falling behind (the hub did not see it fill).
    public func countCutOff() { state.withLock { $0.dropped += 1 } }

    /// Clients now, clients cut off for falling behind, and events delivered, since the start.
    public var counts: (clients: Int, dropped: Int, delivered: Int) {
        let (own, sinks) = state.withLock { (($0.clients.count, $0.dropped, $0.delivered), $0.sinks) }
        return sinks.map(\.counts).reduce(own) { ($0.0 + $1.clients, $0.1 + $1.dropped, $0.2 + $1.delivered) }
    }

    /// A step's events, to every client that wants them. Never calls into a client's
    /// stream while holding `state`: a stream that ends (its reader cancelled) runs `onTermination`
    /// under its own lock, which takes `state`, so holding `state` while yielding would deadlock
    /// (two threads, each holding the lock the other wants). `publishing` keeps one call's events
    /// together and in order for every client; `onTermination` never takes it.
    public func publish(_ happened: [HomeEvent], time: Date) {
        guard !happened.isEmpty else { return }
        publishing.withLock { _ in
            let (clients, allSinks) = state.withLock { ($0.clients, $0.sinks) }
            let sinks = allSinks.filter { !$0.isIdle }
            guard !clients.isEmpty || !sinks.isEmpty else { return }
            let formatted = instantText(time)
            let events = happened.map { StreamEvent($0, time: time, formatted: formatted) }
            for sink in sinks { sink.receive(events) }
            guard !clients.isEmpty else { return }
            var delivered = 0
            var behind: Set<UInt64> = []
            for event in events {
                for (id, client) in clients where !behind.contains(id) && client.filter.matches(event) {
                    switch client.continuation.yield(event) {
                    case .enqueued: delivered += 1
                    case .dropped: behind.insert(id)
                    case .terminated: break  // it has gone; its `onTermination` removes it
                    @unknown default: break
                    }
                }
            }
            let cut = state.withLock { state -> [Client] in
                state.delivered += delivered
                state.dropped += behind.count
                return behind.compactMap { state.clients.removeValue(forKey: $0) }
            }
            for client in cut { client.continuation.finish() }
        }
    }

    /// Ends every stream (the gateway is stopping); later subscriptions end at once.
    public func close() {
        let (clients, sinks) = state.withLock { state in
            state.closed = true
            defer { (state.clients, state.sinks) = ([:], []) }
            return (Array(state.clients.values), state.sinks)
        }
        for client in clients { client.continuation.finish() }
        for sink in sinks { sink.close() }
    }
}
