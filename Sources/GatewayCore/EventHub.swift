public import Foundation
import Automation
import HomeModel
import JSON
import Synchronization

/// An event as the live streams carry it: the typed event and when it happened, with what a client
/// filters on, and its JSON (the documented event payload, the same as on MQTT), written once for
/// every client.
public struct StreamEvent: Sendable {
    public var event: HomeEvent
    public var time: Date
    /// `characteristic` for a value change, else the event's `type` (accessory, home, room, zone,
    /// action_set, trigger, mapping_file).
    public var type: String
    /// The accessory of a value change or of an accessory event; the service and characteristic of a value change.
    public var accessory: String?
    public var service: String?
    public var characteristic: String?
    /// The event's JSON.
    public var payload: [UInt8]

    init(_ event: HomeEvent, time: Date, formatted: String) {
        self.event = event
        self.time = time
        payload = HomeJSON.eventPayload(event, time: formatted)
        switch event {
        case .characteristic(let change):
            (type, accessory, service, characteristic) = ("characteristic", change.accessory, change.service, change.characteristic)
        case .accessory(let id, _, _): (type, accessory) = ("accessory", id)
        case .home: type = "home"
        case .room: type = "room"
        case .zone: type = "zone"
        case .actionSet: type = "action_set"
        case .trigger: type = "trigger"
        case .mappingFile: type = "mapping_file"
        }
    }
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
