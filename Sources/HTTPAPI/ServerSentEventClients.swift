import GatewayCore
import Logging
import NIOCore
import Synchronization

/// The Server-Sent Events clients of `/api/events`. Each client is one bounded stream of the frames
/// it is to be sent, read by its own response and nothing else: the publishing thread yields each
/// event's shared bytes into it. A client with `capacity` waiting when another comes is cut off:
/// its stream ends after what waited, and its connection is closed 15 s later unless the response
/// has ended by then. The gateway never waits for a client.
final class ServerSentEventClients: Sendable {
    /// One client's stream of bytes to send (events, and a keepalive comment every 15 s).
    struct Subscription: Sendable {
        let frames: AsyncStream<ByteBuffer>
        let ending: Ending
    }

    private struct Client {
        var filter: EventFilter
        var continuation: AsyncStream<ByteBuffer>.Continuation
        var ending: Ending
    }

    private struct State {
        var clients: [UInt64: Client] = [:]
        var next: UInt64 = 0
        var closed = false
        var dropped = 0
        var delivered = 0
    }

    let capacity: Int
    let logger: Logger
    private let state = Mutex(State())
    private let clientCount = Atomic<Int>(0)

    init(capacity: Int, logger: Logger) {
        self.capacity = capacity
        self.logger = logger
    }

    static let keepalive = ByteBuffer(string: ": keepalive\n\n")

    /// A new client on `connection`: its stream ends when the gateway stops or it is cut off, and
    /// it is forgotten once its response stops reading the stream.
    func add(_ filter: EventFilter, connection: any Channel) -> Subscription {
        let (frames, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingOldest(capacity))
        let ending = Ending(connection: connection)
        let id = state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            state.next += 1
            state.clients[state.next] = Client(filter: filter, continuation: continuation, ending: ending)
            return state.next
        }
        guard let id else {
            continuation.finish()
            return Subscription(frames: frames, ending: ending)
        }
        clientCount.add(1, ordering: .relaxed)
        // A comment every 15 s, so proxies keep an idle stream open; a full stream skips it.
        let ticks = connection.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(15), delay: .seconds(15)) { _ in
            continuation.yield(Self.keepalive)
        }
        // Runs outside `state` (see `deliver`): on `finish`, or when the response stops reading.
        continuation.onTermination = { [weak self] _ in
            ticks.cancel()
            self?.remove(id)
        }
        return Subscription(frames: frames, ending: ending)
    }

    private func remove(_ id: UInt64) {
        if state.withLock({ $0.clients.removeValue(forKey: id) }) != nil { clientCount.add(-1, ordering: .relaxed) }
    }

    var isIdle: Bool { clientCount.load(ordering: .relaxed) == 0 }

    var counts: (clients: Int, dropped: Int, delivered: Int) {
        state.withLock { ($0.clients.count, $0.dropped, $0.delivered) }
    }

    /// A publish's frames to every client that wants them. Never yields or finishes while holding
    /// `state`: a stream that ends runs `onTermination` under its own lock, and that takes
    /// `state`, so holding `state` there could deadlock (two threads, each holding the lock the
    /// other wants). The event broadcast calls this for one publish at a time, so every client gets the
    /// events in order.
    func deliver(_ frames: [EventFrames]) {
        let clients = state.withLock { $0.clients }
        guard !clients.isEmpty else { return }
        var delivered = 0
        var behind: [UInt64] = []
        for (id, client) in clients {
            for index in frames.indices where client.filter.matches(frames[index].event) {
                guard case .dropped = client.continuation.yield(frames[index].serverSent) else {
                    delivered += 1
                    continue
                }
                behind.append(id)
                break
            }
        }
        let cut = state.withLock { state -> [Client] in
            state.delivered += delivered
            state.dropped += behind.count
            return behind.compactMap { state.clients.removeValue(forKey: $0) }
        }
        clientCount.add(-cut.count, ordering: .relaxed)
        for client in cut {
            client.ending.cutOff()
            client.continuation.finish()
            logger.notice(
                "closed a Server-Sent Events client of /api/events that fell \(capacity) events behind",
                metadata: ["client": "\(client.ending.connection.peer)"])
        }
    }

    /// The gateway stops: every stream ends after what waits in it; later clients end at once.
    func close() {
        let clients = state.withLock { state in
            state.closed = true
            return Array(state.clients.values)
        }
        for client in clients { client.continuation.finish() }
    }
}

extension ServerSentEventClients {
    /// Whether a Server-Sent Events client was cut off, and the close that follows if it reads no more.
    final class Ending: Sendable {
        let connection: any Channel
        private let state = Mutex<(cutOff: Bool, deadline: Scheduled<Void>?)>((false, nil))

        init(connection: any Channel) {
            self.connection = connection
        }

        var isCutOff: Bool { state.withLock { $0.cutOff } }

        /// Its connection closed in 15 s, unless the response ends first.
        fileprivate func cutOff() {
            let connection = connection
            state.withLock { state in
                state.cutOff = true
                state.deadline = connection.eventLoop.scheduleTask(in: .seconds(15)) { connection.close(promise: nil) }
            }
        }

        /// The response has ended: its connection stays.
        func cancelDeadline() { state.withLock { $0.deadline?.cancel() } }
    }
}
