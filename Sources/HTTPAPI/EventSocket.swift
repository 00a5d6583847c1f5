import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

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
            // The kernel's share of the backlog stays small (Linux doubles this): a client that
            // stops reading is seen as behind after about 1,500 events, not after megabytes.
            try? await channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketFanOut.sendBuffer).get()
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
