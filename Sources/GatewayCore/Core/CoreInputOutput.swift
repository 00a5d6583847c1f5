public import Foundation

/// A message the gateway wants published.
public struct Outgoing: Sendable, Equatable, CustomStringConvertible {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool
    /// 0 or 1: device writes and requests are QoS 1, events and state QoS 0.
    public var qos: Int

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

/// What goes into the core: what device sources read and front ends' commands, handled in order.
public enum CoreInput: Sendable {
    /// `retained`: a stored message the broker replays on subscribing; its values count, its time
    /// does not (it says nothing about when the device last reported).
    case device(DeviceInput, retained: Bool = false)
    case command(HomeCommand, Ticket)
}

/// What the core produced, in order.
public enum CoreEffect: Sendable {
    /// A message to a device or bridge (a coalesced `/set`, a `/get`).
    case device(DeviceCommand)
    case event(HomeEvent)
    indirect case reply(Reply)
    /// An accessory's values or reachability changed during the batch (told once per batch).
    case stateChanged(String)
    /// An accessory is gone: its state is no more.
    case stateRemoved(String)
    /// Accessories came, went or changed shape, name or place.
    case treeChanged

    public var isDeviceWrite: Bool {
        if case .device = self { return true }
        return false
    }

    /// A reply: when what it answers cannot be stored, it goes at once as a storage error, not held.
    public var isReply: Bool {
        if case .reply = self { return true }
        return false
    }
}

/// What one step of the core produced, by when it goes: writes and requests to devices first (before
/// anything else of the step is rendered), effects now, effects once `store` is committed (replies to
/// changes of the home, structural events, fires of timers); the changes to store, and the batch's time.
public struct CoreOutput: Sendable {
    public var first: [DeviceCommand]
    public var now: [CoreEffect]
    public var afterCommit: [CoreEffect]
    public var store: StoreBatch
    public var time: Date
}

/// A message as the gateway receives it.
public struct Incoming: Sendable {
    public var topic: String
    public var payload: [UInt8]
    /// Published retained: a stored message replayed (or, on MQTT 5, kept as published), not a live one.
    public var retained: Bool
    /// A bridge's device list read on the network thread where libmosquitto held it
    /// (`DeviceSources.inventory(lent:_:reader:)`), in place of the payload.
    public var read: DeviceInput?

    public init(topic: String, payload: [UInt8], retained: Bool = false, read: DeviceInput? = nil) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
        self.read = read
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
    public var triggerFires = 0
    /// Fires of a busy trigger (not a loop) skipped past the loop guard's limit.
    public var triggerFiresSkipped = 0
    public var actionSetRuns = 0
}
