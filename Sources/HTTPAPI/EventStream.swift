import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// `GET /api/events`: Server-Sent Events, one per home event, the same JSON as on MQTT. Filters
/// in the query (`accessory`, `service`, `characteristic`, `type`, each may repeat). A client that
/// falls `EventBroadcast.capacity` events behind is cut off (see `ServerSentEventClients`): it gets what
/// waited for it, then a comment saying why, and the response ends. The gateway never waits for a client.
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

    static func response(_ request: Request, clients: ServerSentEventClients, connection: any Channel) -> Response {
        let filter = filter(request.uri)
        let body = ResponseBody { writer in
            // A small send buffer, as for WebSocket clients: one that stops reading is found behind
            // after about 1,000 events, not after the megabytes the kernel would otherwise take.
            try? await connection.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketFanOut.sendBuffer).get()
            let subscription = clients.add(filter, connection: connection)
            defer { subscription.ending.cancelDeadline() }
            // A comment first, so a client sees the stream open before the first event.
            try await writer.write(ByteBuffer(string: ": homegate events\n\n"))
            for await frame in subscription.frames {
                try await writer.write(frame)
            }
            if subscription.ending.isCutOff {
                try await writer.write(
                    ByteBuffer(string: ": fell \(clients.capacity) events behind; the stream ends here, connect again\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: body)
    }
}
