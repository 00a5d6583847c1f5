import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// `GET /api/events`: Server-Sent Events, one per home event, the same JSON as on MQTT. Filters
/// in the query (`accessory`, `service`, `characteristic`, `type`, each may repeat). A client that
/// falls `EventHub.capacity` events behind is cut off: it gets what waited for it, then a comment
/// saying why, and the response ends; if it does not read on, its connection is closed 15 s later.
/// The gateway never waits for a client.
enum EventStream {
    static func filter(_ uri: URI) -> EventFilter {
        var filter = EventFilter()
        for (key, value) in uri.queryParameters {
            let text = String(value)
            switch key {
            case "accessory": filter.accessories.insert(text)
            case "service": filter.services.insert(text)
            case "characteristic": filter.characteristics.insert(text)
            case "type": filter.types.insert(text)
            default: break
            }
        }
        return filter
    }

    static func response(_ request: Request, hub: EventHub, connection: any Channel, logger: Logger) -> Response {
        let events = hub.subscribe(filter(request.uri))
        let capacity = hub.capacity
        let ending = Ending()
        let body = ResponseBody { writer in
            // A comment first, so a client sees the stream open before the first event; one every
            // 15 s after, so proxies keep an idle stream open. Events and ticks meet in one bounded
            // stream; a client that lets it fill is cut off like one that lets the hub's fill.
            // A small send buffer, as for WebSocket clients: one that stops reading is found behind
            // after about 1,000 events, not after the megabytes the kernel would otherwise take.
            try? await connection.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketFanOut.sendBuffer).get()
            try await writer.write(ByteBuffer(string: ": homegate events\n\n"))
            let (items, output) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingOldest(capacity))
            defer { ending.cancelDeadline() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in events {
                        guard case .dropped = output.yield(.event(event)) else { continue }
                        hub.countCutOff()
                        ending.cutOff(connection, capacity: capacity, logger: logger)
                        break
                    }
                    // The hub ends a stream when the gateway stops, or when it cut the client off itself;
                    // a client that leaves cancels this task, which ends it too.
                    if !hub.isClosed, !Task.isCancelled { ending.cutOff(connection, capacity: capacity, logger: logger) }
                    output.finish()
                }
                group.addTask {
                    while (try? await Task.sleep(for: .seconds(15))) != nil { output.yield(.tick) }
                }
                for await item in items {
                    switch item {
                    case .event(let event):
                        var buffer = ByteBuffer()
                        buffer.reserveCapacity(18 + event.type.utf8.count + event.payload.count)
                        buffer.writeString("event: ")
                        buffer.writeString(event.type)
                        buffer.writeString("\ndata: ")
                        buffer.writeBytes(event.payload)
                        buffer.writeString("\n\n")
                        try await writer.write(buffer)
                    case .tick:
                        try await writer.write(ByteBuffer(string: ": keepalive\n\n"))
                    }
                }
                group.cancelAll()
            }
            if ending.isCutOff {
                try await writer.write(ByteBuffer(string: ": fell \(capacity) events behind; the stream ends here, connect again\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: body)
    }
}

private enum Item: Sendable {
    case event(StreamEvent)
    case tick
}

/// Whether a Server-Sent Events client was cut off, and the close that follows if it reads no more.
private final class Ending: Sendable {
    private let state = Mutex<(cutOff: Bool, deadline: Scheduled<Void>?)>((false, nil))

    var isCutOff: Bool { state.withLock { $0.cutOff } }

    /// Once per client: the log line, and its connection closed in 15 s unless the response ends first.
    func cutOff(_ connection: any Channel, capacity: Int, logger: Logger) {
        let first = state.withLock { state in
            guard !state.cutOff else { return false }
            state.cutOff = true
            state.deadline = connection.eventLoop.scheduleTask(in: .seconds(15)) { connection.close(promise: nil) }
            return true
        }
        guard first else { return }
        logger.notice(
            "closed a Server-Sent Events client of /api/events that fell \(capacity) events behind",
            metadata: ["client": "\(connection.peer)"])
    }

    func cancelDeadline() { state.withLock { $0.deadline?.cancel() } }
}

/// `GET /api/events` upgraded to a WebSocket: one text message per event,
/// `{"event": "<type>", "data": <the MQTT event's JSON>}`, with the same filters as the
/// Server-Sent Events; what the client sends is read and ignored. Ends when the client leaves,
/// falls behind (see `SocketFanOut`), or the gateway stops.
enum EventSocket {
    static func upgrade(
        _ request: HTTPRequest, channel: any Channel, clients: SocketFanOut, token: String?
    ) -> ShouldUpgradeResult<
        WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    > {
        let uri = URI(request.path ?? "/")
        guard uri.path == "/api/events" else { return .dontUpgrade }
        if let token {
            var given = uri.queryParameters["access_token"].map(String.init)
            if let header = request.headerFields[.authorization], header.lowercased().hasPrefix("bearer ") {
                given = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            }
            guard let given, APIResponder.same(given, token) else {
                // A refused handshake tells a browser nothing; a close with a reason does, and no event is sent.
                let reason = given == nil ? "this gateway needs a token: ?access_token=" : "the token is not this gateway's"
                return .upgrade([:]) { _, outbound, _ in try await outbound.close(.policyViolation, reason: reason) }
            }
        }
        let filter = EventStream.filter(uri)
        return .upgrade([:]) { inbound, _, _ in
            // The events go straight to the connection (see `SocketFanOut`); this task only waits
            // for the end: the client leaving (or being cut off, which ends its connection), or the
            // gateway stopping, which closes the socket normally.
            guard let member = await clients.add(channel, filter: filter) else { return }
            defer { clients.remove(member) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in inbound {}
                }
                group.addTask {
                    for await _ in member.stopped {}
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }
}
