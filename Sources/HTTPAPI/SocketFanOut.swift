import GatewayCore
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// The WebSocket clients of the event stream: for each event loop with clients, one task on that
/// loop writes each event's frame (made once for all clients, see `EventFrames`) to every client
/// there whose filter wants it, then flushes each client once. No task, stream or copy per client
/// and event: 200 clients cost a fraction of what 200 readers of their own would. Events published
/// while a loop's task waits to run join it, so a busy loop writes more per call, not more calls.
///
/// Each client is an `EventSocketHandler` in its connection's pipeline, below the frame encoder.
/// A client with `capacity` events written but not yet taken by its connection when another comes
/// has fallen behind: it gets no more events, a close frame (1008) after those it has, and its
/// connection ends once they are sent or 15 s have passed.
final class SocketFanOut: Sendable {
    let capacity: Int
    let logger: Logger
    private let groups = Mutex<[ObjectIdentifier: Group]>([:])
    private let closed = Atomic<Bool>(false)
    private let clientCount = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let delivered = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(0)

    init(capacity: Int, logger: Logger) {
        self.capacity = capacity
        self.logger = logger
    }

    /// Bytes of a connection's socket send buffer: about 450 value changes, ample for any client
    /// that reads (at 50 ms round trip it carries thousands of events a second).
    static let sendBuffer: ChannelOptions.Types.SocketOption.Value = 64 * 1024

    /// A client, as the task of its connection holds it.
    struct Member: Sendable {
        let id: UInt64
        let loop: any EventLoop
        /// Ends when the gateway stops (not when the client is cut off: then its connection ends).
        let stopped: AsyncStream<Never>
    }

    /// Registers a connection that has just become a WebSocket (its pipeline has hummingbird's
    /// `WebSocketFrameEncoder`); nil when the gateway is stopping or the client has already gone.
    func add(_ channel: any Channel, filter: EventFilter) async -> Member? {
        guard !closed.load(ordering: .relaxed) else { return nil }
        let loop = channel.eventLoop
        let group = groups.withLock { groups in
            if let group = groups[ObjectIdentifier(loop)] { return group }
            let group = Group(loop: loop, fanOut: self)
            groups[ObjectIdentifier(loop)] = group
            return group
        }
        let (stopped, stop) = AsyncStream.makeStream(of: Never.self)
        let id = nextID.add(1, ordering: .relaxed).newValue
        let added: Bool
        do {
            added = try await loop.submit {
                guard channel.isActive else { return false }
                let encoder = try channel.pipeline.syncOperations.handler(type: WebSocketFrameEncoder.self)
                let client = EventSocketHandler(id: id, filter: filter, stop: stop) { [weak self] id in self?.remove(id, in: group) }
                try channel.pipeline.syncOperations.addHandler(client, position: .before(encoder))
                group.insert(client)
                return true
            }.get()
        } catch {
            // Not a client leaving: the pipeline is not as hummingbird-websocket made it until now.
            logger.error("a WebSocket client of /api/events gets no events: its connection has no frame encoder to write below (\(error))")
            return nil
        }
        guard added else { return nil }
        clientCount.add(1, ordering: .relaxed)
        // Closed while it was being added: `close` may have run before the client was in its group.
        if closed.load(ordering: .relaxed) { stop.finish() }
        return Member(id: id, loop: loop, stopped: stopped)
    }

    /// The connection is ending (the client left, was cut off, or the gateway stopped).
    func remove(_ member: Member) {
        guard let group = groups.withLock({ $0[ObjectIdentifier(member.loop)] }) else { return }
        member.loop.execute { self.remove(member.id, in: group) }
    }

    /// On the group's loop; once per client, whichever of its task and its handler comes first.
    private func remove(_ id: UInt64, in group: Group) {
        if group.remove(id) != nil { clientCount.add(-1, ordering: .relaxed) }
    }

    var isIdle: Bool { clientCount.load(ordering: .relaxed) == 0 }

    var counts: (clients: Int, dropped: Int, delivered: Int) {
        (clientCount.load(ordering: .relaxed), dropped.load(ordering: .relaxed), delivered.load(ordering: .relaxed))
    }

    /// One publish's events, handed to each loop with clients; never waits.
    func deliver(_ events: [EventFrames]) {
        for group in groups.withLock({ Array($0.values) }) where !group.isEmpty {
            group.enqueue(events)
        }
    }

    func close() {
        closed.store(true, ordering: .relaxed)
        for group in groups.withLock({ Array($0.values) }) {
            group.loop.execute { group.stopAll() }
        }
    }

    fileprivate func cutOff(_ peer: String) {
        dropped.add(1, ordering: .relaxed)
        clientCount.add(-1, ordering: .relaxed)
        logger.notice("closed a WebSocket client of /api/events that fell \(capacity) events behind", metadata: ["client": "\(peer)"])
    }

    fileprivate func count(_ events: Int) { delivered.add(events, ordering: .relaxed) }
}

/// The clients on one event loop: their handlers are reached on that loop only (`NIOLoopBoundBox`);
/// what other threads touch is the count and the events waiting for the loop.
private final class Group: Sendable {
    let loop: any EventLoop
    unowned let fanOut: SocketFanOut
    private let clients: NIOLoopBoundBox<[EventSocketHandler]>
    private let count = Atomic<Int>(0)
    /// Events handed over and not yet delivered, and whether a task on the loop will take them.
    private let pending = Mutex<(events: [EventFrames], scheduled: Bool)>(([], false))

    init(loop: any EventLoop, fanOut: SocketFanOut) {
        self.loop = loop
        self.fanOut = fanOut
        clients = .makeBoxSendingValue([], eventLoop: loop)
    }

    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    func insert(_ client: EventSocketHandler) {
        clients.value.append(client)
        count.store(clients.value.count, ordering: .relaxed)
    }

    func remove(_ id: UInt64) -> EventSocketHandler? {
        clients.withValue { clients in
            guard let index = clients.firstIndex(where: { $0.id == id }) else { return nil }
            defer { count.store(clients.count, ordering: .relaxed) }
            return clients.remove(at: index)
        }
    }

    func stopAll() {
        for client in clients.value { client.stop.finish() }
    }

    /// From the publishing thread: the events join those waiting, or a task on the loop takes them.
    func enqueue(_ events: [EventFrames]) {
        let schedule = pending.withLock { pending in
            pending.events += events
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        guard schedule else { return }
        loop.execute {
            let events = self.pending.withLock { pending in
                defer { pending = ([], false) }
                return pending.events
            }
            self.deliver(events)
        }
    }

    /// Each client's events written and flushed; a client that would go past `capacity` unsent
    /// gets what fits, then is cut off.
    private func deliver(_ events: [EventFrames]) {
        let capacity = fanOut.capacity
        var behind: [EventSocketHandler] = []
        var total = 0
        for client in clients.value {
            let (written, fitted) = client.send(events, capacity: capacity)
            total += written
            if !fitted { behind.append(client) }
        }
        fanOut.count(total)
        for client in behind where remove(client.id) != nil {
            fanOut.cutOff(client.peer)
            client.cutOff(reason: "fell \(capacity) events behind")
        }
    }
}
