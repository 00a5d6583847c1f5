/// A message as it arrived: its payload copied out of libmosquitto's buffers, its topic a String
/// shared with the other messages on that topic (`TopicCache`). A large payload a reader took where
/// it lay (`MQTTClient.readLargePayloads`) comes as what the reader made of it, in `read`, and the
/// payload is empty.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int32
    public var retain: Bool
    /// What the client's reader made of a large payload, in place of the payload; nil for a copied one.
    public var read: ReadPayload?

    public init(topic: String, payload: [UInt8], qos: Int32 = 0, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public var payloadString: String { String(decoding: payload, as: UTF8.self) }
}

/// QoS as MQTT defines it.
public enum QoS: Int32, Sendable, Comparable {
    case atMostOnce = 0, atLeastOnce = 1, exactlyOnce = 2
    public static func < (a: QoS, b: QoS) -> Bool { a.rawValue < b.rawValue }
}

/// What a reader made of a large payload (`MQTTClient.readLargePayloads`); equal only to itself.
public final class ReadPayload: Sendable, Equatable {
    public let value: any Sendable

    init(_ value: any Sendable) {
        self.value = value
    }

    public static func == (a: ReadPayload, b: ReadPayload) -> Bool { a === b }
}
