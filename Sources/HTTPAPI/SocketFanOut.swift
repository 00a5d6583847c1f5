import GatewayCore
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// The WebSocket clients of the event stream, fed straight from the hub: for each event loop with
/// clients, one task on that loop makes each event's frame once and writes it to every client there
/// whose filter wants it, then flushes each client once. No task, stream or copy per client and
/// event: 200 clients cost a fraction of what 200 readers of their own would. Events published
/// while a loop's task waits to run join it, so a busy loop writes more per call, not more calls.
///
/// Frames are written below the connection's frame encoder, whole (header and text), so every
/// client shares one buffer per event. A client with `capacity` events written but not yet taken
/// by its connection when another comes has fallen behind: it gets no more events, a close frame
/// (1008) after those it has, and its connection ends once they are sent or 15 s have passed.
final class SocketFanOut: EventSink {
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

    /// A client, as the handler of its connection holds it.
    struct Member: Sendable {
        let id: UInt64
        let loop: any EventLoop
        /// Ends when the gateway stops (not when the client is cut off: then its connection ends).
        let stopped: AsyncStream<Never>
    }

    /// Registers a connection that has just become a WebSocket; nil when the gateway is stopping or
    /// the client has already gone.
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
        let added = try? await loop.submit {
            guard channel.isActive else { return false }
            // The kernel's share of the backlog stays small (Linux doubles this): a client that
            // stops reading is seen as behind after about 1,500 events, not after megabytes.
            try channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.sendBuffer)
            let encoder = try channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
            group.insert(Client(id: id, filter: filter, encoder: encoder, stop: stop))
            return true
        }.get()
        guard added == true else { return nil }
        clientCount.add(1, ordering: .relaxed)
        // Closed while it was being added: `close` may have run before the client was in its group.
        if closed.load(ordering: .relaxed) { stop.finish() }
        return Member(id: id, loop: loop, stopped: stopped)
    }

    /// The connection has ended (the client left, was cut off, or the gateway stopped).
    func remove(_ member: Member) {
        guard let group = groups.withLock({ $0[ObjectIdentifier(member.loop)] }) else { return }
        member.loop.execute {
            if group.remove(member.id) != nil { self.clientCount.add(-1, ordering: .relaxed) }
        }
    }

    var isIdle: Bool { clientCount.load(ordering: .relaxed) == 0 }

    var counts: (clients: Int, dropped: Int, delivered: Int) {
        (clientCount.load(ordering: .relaxed), dropped.load(ordering: .relaxed), delivered.load(ordering: .relaxed))
    }

    func receive(_ events: [StreamEvent]) {
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

    fileprivate func cutOff(_ channel: any Channel) {
        dropped.add(1, ordering: .relaxed)
        clientCount.add(-1, ordering: .relaxed)
        logger.notice(
            "closed a WebSocket client of /api/events that fell \(capacity) events behind", metadata: ["client": "\(channel.peer)"])
    }

    fileprivate func count(_ events: Int) { delivered.add(events, ordering: .relaxed) }
}

/// One client, as its event loop knows it: touched on that loop only.
private final class Client: @unchecked Sendable {
    let id: UInt64
    let filter: EventFilter
    /// Where a whole frame goes straight to the socket.
    let encoder: ChannelHandlerContext
    let stop: AsyncStream<Never>.Continuation
    /// Events written and not yet taken by the connection.
    var unsent = 0

    init(id: UInt64, filter: EventFilter, encoder: ChannelHandlerContext, stop: AsyncStream<Never>.Continuation) {
        self.id = id
        self.filter = filter
        self.encoder = encoder
        self.stop = stop
    }
}

/// The clients on one event loop. Everything but `count` is touched on that loop only.
private final class Group: @unchecked Sendable {
    let loop: any EventLoop
    unowned let fanOut: SocketFanOut
    private var clients: [Client] = []
    private let count = Atomic<Int>(0)
    /// Events handed over and not yet delivered, and whether a task on the loop will take them.
    private let pending = Mutex<(events: [StreamEvent], scheduled: Bool)>(([], false))

    init(loop: any EventLoop, fanOut: SocketFanOut) {
        self.loop = loop
        self.fanOut = fanOut
    }

    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    func insert(_ client: Client) {
        loop.preconditionInEventLoop()
        clients.append(client)
        count.store(clients.count, ordering: .relaxed)
    }

    @discardableResult
    func remove(_ id: UInt64) -> Client? {
        loop.preconditionInEventLoop()
        guard let index = clients.firstIndex(where: { $0.id == id }) else { return nil }
        defer { count.store(clients.count, ordering: .relaxed) }
        return clients.remove(at: index)
    }

    func stopAll() {
        for client in clients { client.stop.finish() }
    }

    /// From the publishing thread: the events join those waiting, or a task on the loop takes them.
    func enqueue(_ events: [StreamEvent]) {
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

    /// Each client's events written in order, the last with a promise that stands for them all
    /// (writes complete in order), then one flush; each event's frame made once, when a client
    /// first wants it. A client that would go past `capacity` unsent gets what fits, then is cut.
    private func deliver(_ events: [StreamEvent]) {
        loop.preconditionInEventLoop()
        let capacity = fanOut.capacity
        var frames = [ByteBuffer?](repeating: nil, count: events.count)
        var behind: [Client] = []
        var total = 0
        for client in clients {
            var held: ByteBuffer?
            var written = 0
            for index in events.indices where client.filter.matches(events[index]) {
                guard client.unsent + written < capacity else {
                    behind.append(client)
                    break
                }
                if let held { client.encoder.write(NIOAny(held), promise: nil) }
                if frames[index] == nil { frames[index] = Self.frame(events[index], allocator: client.encoder.channel.allocator) }
                held = frames[index]
                written += 1
            }
            guard let held else { continue }
            let batch = written
            client.unsent += batch
            let done = loop.makePromise(of: Void.self)
            done.futureResult.whenComplete { _ in client.unsent -= batch }
            client.encoder.write(NIOAny(held), promise: done)
            client.encoder.flush()
            total += batch
        }
        fanOut.count(total)
        for client in behind { cut(client) }
    }

    /// No more events for a client that has fallen behind; the reason after what it has.
    private func cut(_ client: Client) {
        guard remove(client.id) != nil else { return }
        let channel = client.encoder.channel
        fanOut.cutOff(channel)
        let reason = "fell \(fanOut.capacity) events behind"
        var close = channel.allocator.buffer(capacity: 4 + reason.utf8.count)
        close.writeBytes([0x88, UInt8(2 + reason.utf8.count)])
        close.writeInteger(UInt16(1008))  // policy violation
        close.writeString(reason)
        let sent = loop.makePromise(of: Void.self)
        client.encoder.writeAndFlush(NIOAny(close), promise: sent)
        let deadline = loop.scheduleTask(in: .seconds(15)) { channel.close(promise: nil) }
        sent.futureResult.whenComplete { _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
    }

    /// A whole unmasked text frame: `{"event":"<type>","data":<the MQTT event's JSON>}`.
    static func frame(_ event: StreamEvent, allocator: ByteBufferAllocator) -> ByteBuffer {
        let length = 20 + event.type.utf8.count + event.payload.count
        var buffer = allocator.buffer(capacity: length + 10)
        buffer.writeInteger(UInt8(0x81))
        if length < 126 {
            buffer.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
        buffer.writeString(#"{"event":""#)
        buffer.writeString(event.type)
        buffer.writeString(#"","data":"#)
        buffer.writeBytes(event.payload)
        buffer.writeString("}")
        return buffer
    }
}
