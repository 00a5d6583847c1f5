import GatewayCore
import Logging
import NIOCore

/// HTTP's clients of the live event stream, as one sink of the event broadcast: each event is made into its
/// frames once (`EventFrames`), and those same bytes go to every Server-Sent Events client and
/// every WebSocket client that wants the event.
final class EventFanOut: EventSink {
    let serverSent: ServerSentEventClients
    let sockets: SocketFanOut
    private let allocator = ByteBufferAllocator()

    init(capacity: Int, logger: Logger) {
        serverSent = ServerSentEventClients(capacity: capacity, logger: logger)
        sockets = SocketFanOut(capacity: capacity, logger: logger)
    }

    var isIdle: Bool { serverSent.isIdle && sockets.isIdle }

    func receive(_ events: [StreamEvent]) {
        let (toServerSent, toSockets) = (!serverSent.isIdle, !sockets.isIdle)
        guard toServerSent || toSockets else { return }
        let frames = events.map { EventFrames($0, serverSent: toServerSent, socket: toSockets, allocator: allocator) }
        if toServerSent { serverSent.deliver(frames) }
        if toSockets { sockets.deliver(frames) }
    }

    func close() {
        serverSent.close()
        sockets.close()
    }

    var counts: (clients: Int, dropped: Int, delivered: Int) {
        let (a, b) = (serverSent.counts, sockets.counts)
        return (a.clients + b.clients, a.dropped + b.dropped, a.delivered + b.delivered)
    }
}
