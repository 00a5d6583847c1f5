import GatewayCore

/// The MQTT API's messages from before its first subscriptions held (`HomeGateway.Runtime.publish`):
/// the known house's tree and states at start, while the broker may not be up yet. A retained topic
/// keeps its newest message, in the place of its first; of the other messages (events, replies) the
/// first `limit` wait and the rest are counted, not kept.
struct HeldMessages {
    let limit: Int
    private(set) var messages: [Outgoing] = []
    private var retained: [String: Int] = [:]
    /// The messages past `limit`, not kept.
    private(set) var dropped = 0

    init(limit: Int) { self.limit = limit }

    /// Nothing to send and nothing dropped to tell of.
    var isEmpty: Bool { messages.isEmpty && dropped == 0 }

    mutating func hold(_ message: Outgoing) {
        if message.retain, let at = retained[message.topic] {
            messages[at] = message
        } else if !message.retain, messages.count - retained.count >= limit {
            dropped += 1
        } else {
            if message.retain { retained[message.topic] = messages.count }
            messages.append(message)
        }
    }

    /// What was held, in order, and how many were dropped; nothing is held after.
    mutating func release() -> (messages: [Outgoing], dropped: Int) {
        defer { self = HeldMessages(limit: limit) }
        return (messages, dropped)
    }
}
