import CMosquitto
import Synchronization

/// libmosquitto holds an `obj` pointer for callbacks and thread-safe calls; vouch for it once.
/// Its client API is thread-safe once threaded mode is on, which `mosquitto_loop_start` sets.
struct MosquittoHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// What `MQTTClient.readLargePayloads` set. The closure is kept in a class: a bare function value
/// read out of a `Mutex` would be wrapped in one more reabstraction thunk at each read.
final class PayloadReader: Sendable {
    let minimumBytes: Int
    let read: @Sendable (String, UnsafeRawBufferPointer) -> (any Sendable)?

    init(minimumBytes: Int, _ read: @escaping @Sendable (String, UnsafeRawBufferPointer) -> (any Sendable)?) {
        self.minimumBytes = minimumBytes
        self.read = read
    }
}

/// What the C callbacks reach through `obj`: only Sendable state, guarded by one lock.
final class CallbackContext: Sendable {
    struct Shared: ~Copyable {
        var state: ConnectionState = .connecting
        /// Filters to hold with their MQTT 5 subscription options, re-sent on every CONNACK.
        var subscriptions: [String: (qos: QoS, options: Int32)] = [:]
        /// SUBACK/PUBACK/UNSUBACK waiters by message id.
        var acknowledgements: [Int32: CheckedContinuation<[Int32]?, Never>] = [:]
        var stateWaiters: [CheckedContinuation<Void, Never>] = []
        /// The last error libmosquitto logged (a TLS verification failure, say), for disconnect reasons.
        var lastLoggedError: String?
        /// QoS 1/2 publishes made while disconnected, sent on the next CONNACK. Ours, not
        /// libmosquitto's: it drops in-flight messages on a clean reconnect.
        var outbox: [MQTTMessage] = []
        var outboxDropped = 0
        /// When the current connection was made, and how many in a row ended within seconds of it:
        /// another client with our client id takes the session over each time we reconnect.
        var connectedAt: ContinuousClock.Instant?
        var quickDrops = 0
        /// Whether the birth may go out on a CONNACK (`MQTTConfiguration.birthWaitsForAnnounce`).
        var announced = true
    }

    let shared = Mutex(Shared())
    let inbox: Inbox
    let reader = Mutex<PayloadReader?>(nil)
    /// The reader's `minimumBytes` (`Int.max` without one): looked at first, so that messages smaller
    /// than that cost no lock.
    let readerMinimum = Atomic<Int>(.max)
    /// Used by the message callback alone, which libmosquitto calls one at a time on its network
    /// thread: its lock is never contended.
    let topics = TopicCache()
    let events: AsyncStream<ConnectionState>.Continuation
    let birth: MQTTConfiguration.StatusMessage?
    let clientID: String
    let isV5: Bool
    let outboxLimit: Int

    init(inbox: Inbox, events: AsyncStream<ConnectionState>.Continuation, configuration: MQTTConfiguration) {
        self.inbox = inbox
        self.events = events
        self.birth = configuration.birth
        self.clientID = configuration.clientID
        self.isV5 = configuration.protocolVersion == .v5
        self.outboxLimit = max(1, configuration.outboxLimit)
        let waits = configuration.birthWaitsForAnnounce
        shared.withLock { $0.announced = !waits }
    }

    /// Registers a waiter for the next state change, unless the state already differs from `seen`.
    func waitForChange(from seen: ConnectionState, _ continuation: CheckedContinuation<Void, Never>) {
        let changed = shared.withLock { shared in
            if shared.state != seen { return true }
            shared.stateWaiters.append(continuation)
            return false
        }
        if changed { continuation.resume() }
    }

    static func from(_ obj: UnsafeMutableRawPointer?) -> CallbackContext {
        Unmanaged<CallbackContext>.fromOpaque(obj!).takeUnretainedValue()
    }

    /// Moves to `state` and wakes whoever waits on a change. Leaving `connected` also resolves
    /// every pending acknowledgement, in the same critical section that sends register them in:
    /// the packets they wait for will not come on this connection.
    func transition(to state: ConnectionState) {
        let (waiters, pending) = shared.withLock { shared in
            shared.state = state
            defer {
                shared.stateWaiters = []
                if !state.isConnected { shared.acknowledgements = [:] }
            }
            return (shared.stateWaiters, state.isConnected ? [:] : shared.acknowledgements)
        }
        for waiter in waiters { waiter.resume() }
        for waiter in pending.values { waiter.resume(returning: nil) }
        events.yield(state)
    }

    func acknowledge(_ messageID: Int32, _ result: [Int32]?) {
        let waiter = shared.withLock { $0.acknowledgements.removeValue(forKey: messageID) }
        waiter?.resume(returning: result)
    }
}
