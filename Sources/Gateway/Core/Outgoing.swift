public import Persistence

/// A message the gateway wants published.
public struct Outgoing: Sendable, Equatable, CustomStringConvertible {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool
    /// 0 or 1: device writes and requests are QoS 1, events and state QoS 0.
    public var qos: Int
    /// An answer on `response/<command>`: when what it answers cannot be stored, it says so.
    public var isAnswer = false

    public init(_ topic: String, _ payload: [UInt8], retain: Bool = false, qos: Int = 0) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.qos = qos
    }

    public init(_ topic: String, _ text: String, retain: Bool = false, qos: Int = 0) {
        self.init(topic, Array(text.utf8), retain: retain, qos: qos)
    }

    public var text: String { String(decoding: payload, as: UTF8.self) }
    public var description: String { "\(topic) \(text)\(retain ? " (retained)" : "")" }
}

/// What one step of the gateway produced: messages to publish now, messages to publish once
/// the store has committed `store` (answers to changes of the home, fires of timers), and the
/// changes to store.
public struct GatewayOutput: Sendable {
    public var messages: [Outgoing]
    public var afterCommit: [Outgoing]
    public var store: StoreBatch

    public init(messages: [Outgoing] = [], afterCommit: [Outgoing] = [], store: StoreBatch = StoreBatch()) {
        self.messages = messages
        self.afterCommit = afterCommit
        self.store = store
    }

    /// Everything, in order, for tests that do not care about the commit.
    public var all: [Outgoing] { messages + afterCommit }
}

/// A message as the gateway receives it.
public struct Incoming: Sendable {
    public var topic: String
    public var payload: [UInt8]
    /// Published retained: a stored message replayed (or, on MQTT 5, kept as published), not a live one.
    public var retained: Bool

    public init(topic: String, payload: [UInt8], retained: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}

/// What the gateway counts: for the log and for tests.
public struct GatewayCounters: Sendable, Equatable {
    public var messages = 0
    public var oversized = 0
    public var invalid = 0
    public var events = 0
    public var deviceWrites = 0
    /// Retained messages on `set/` and `request/` topics, refused.
    public var retainedCommands = 0
}
