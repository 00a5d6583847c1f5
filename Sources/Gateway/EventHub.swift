import JSON
import Synchronization

/// An event as a stream carries it: the same JSON as its MQTT message, with what a client filters on.
public struct StreamEvent: Sendable {
    /// `characteristic` for a value change, else the event's `type` (accessory, home, room, zone, action_set, trigger).
    public var type: String
    /// The accessory of a value change or of an accessory event; the service and characteristic of a value change.
    public var accessory: String?
    public var service: String?
    public var characteristic: String?
    /// The JSON, exactly as published on `<base>/event/…`.
    public var payload: [UInt8]
}

/// What a client wants: each list empty means any.
public struct EventFilter: Sendable, Hashable {
    public var types: Set<String> = []
    public var accessories: Set<String> = []
    public var services: Set<String> = []
    public var characteristics: Set<String> = []

    public init(types: Set<String> = [], accessories: Set<String> = [], services: Set<String> = [], characteristics: Set<String> = []) {
        self.types = types
        self.accessories = accessories
        self.services = services
        self.characteristics = characteristics
    }

    public func matches(_ event: StreamEvent) -> Bool {
        func allows(_ wanted: Set<String>, _ value: String?) -> Bool { wanted.isEmpty || value.map(wanted.contains) == true }
        return allows(types, event.type) && allows(accessories, event.accessory) && allows(services, event.service)
            && allows(characteristics, event.characteristic)
    }
}

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

/// Hands every published event to the clients of the live streams (HTTP's SSE and WebSocket).
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
    /// `<base>/event/`
    private let prefix: String

    public init(baseTopic: String, capacity: Int = 1_000) {
        self.capacity = capacity
        prefix = baseTopic + "/event/"
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

    /// The events among `messages`, to every client that wants them. Never calls into a client's
    /// stream while holding `state`: a stream that ends (its reader cancelled) runs `onTermination`
    /// under its own lock, which takes `state`, so holding `state` while yielding would deadlock
    /// (two threads, each holding the lock the other wants). `publishing` keeps one call's events
    /// together and in order for every client; `onTermination` never takes it.
    func publish(_ messages: [Outgoing]) {
        publishing.withLock { _ in
            let (clients, allSinks) = state.withLock { ($0.clients, $0.sinks) }
            let sinks = allSinks.filter { !$0.isIdle }
            guard !clients.isEmpty || !sinks.isEmpty else { return }
            let events = messages.filter(\.isEvent).compactMap(streamed)
            guard !events.isEmpty else { return }
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

    /// The event a message on `<base>/event/…` carries: `<accessory>/<service>/<characteristic>` is
    /// a value change, `<type>/<id>` anything else (ids never hold a `/`).
    private func streamed(_ message: Outgoing) -> StreamEvent? {
        guard message.topic.hasPrefix(prefix) else { return nil }
        let parts = message.topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 3:
            return StreamEvent(
                type: "characteristic", accessory: parts[0], service: parts[1], characteristic: parts[2], payload: message.payload)
        case 2:
            return StreamEvent(type: parts[0], accessory: parts[0] == "accessory" ? parts[1] : nil, payload: message.payload)
        default: return nil
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
