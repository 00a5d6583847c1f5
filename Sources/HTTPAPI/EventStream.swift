import Gateway
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /api/events`: Server-Sent Events, one per home event, the same JSON as on MQTT. Filters
/// in the query (`accessory`, `service`, `characteristic`, `type`, each may repeat). A client that
/// falls `EventHub.capacity` events behind is cut off; the gateway never waits for one.
enum EventStream {
    static func filter(_ request: Request) -> EventFilter {
        var filter = EventFilter()
        for (key, value) in request.uri.queryParameters {
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

    static func response(_ request: Request, hub: EventHub) -> Response {
        let events = hub.subscribe(filter(request))
        let capacity = hub.capacity
        let body = ResponseBody { writer in
            // A comment first, so a client sees the stream open before the first event; one every
            // 15 s after, so proxies keep an idle stream open. Events and ticks meet in one bounded
            // stream; a client that lets it fill is cut off like one that lets the hub's fill.
            try await writer.write(ByteBuffer(string: ": homegate events\n\n"))
            let (items, output) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingOldest(capacity))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in events {
                        if case .dropped = output.yield(.event(event)) { break }
                    }
                    output.finish()
                }
                group.addTask {
                    while (try? await Task.sleep(for: .seconds(15))) != nil { output.yield(.tick) }
                }
                for await item in items {
                    switch item {
                    case .event(let event):
                        var buffer = ByteBuffer()
                        buffer.writeString("event: \(event.type)\ndata: ")
                        buffer.writeBytes(event.payload)
                        buffer.writeString("\n\n")
                        try await writer.write(buffer)
                    case .tick:
                        try await writer.write(ByteBuffer(string: ": keepalive\n\n"))
                    }
                }
                group.cancelAll()
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
