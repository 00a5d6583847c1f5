import CMosquitto
import Secrets
import Synchronization

// mosquitto_lib_init() is not thread-safe; a global initialiser runs exactly once.
private let libraryInitialised: Int32 = mosquitto_lib_init()

/// An MQTT connection through libmosquitto, which owns one network thread per client.
///
/// The thread does I/O, keepalive and reconnects with back-off; its callbacks only copy and
/// hand off. Subscriptions are remembered and made again on every CONNACK.
public final class MQTTClient: Sendable {
    public let configuration: MQTTConfiguration
    /// Connection changes, newest kept if nobody listens.
    public let connectionEvents: AsyncStream<ConnectionState>
    let handle: MosquittoHandle
    let context: CallbackContext  // owns the object whose address libmosquitto holds

    public init(_ configuration: MQTTConfiguration) throws(MQTTError) {
        precondition(libraryInitialised == MOSQ_ERR_SUCCESS.rawValue, "mosquitto_lib_init failed")
        let (events, continuation) = AsyncStream.makeStream(of: ConnectionState.self, bufferingPolicy: .bufferingNewest(64))
        let isV5 = configuration.protocolVersion == .v5
        let context = CallbackContext(inbox: Inbox(limit: configuration.inboxLimit), events: continuation, configuration: configuration)
        guard let raw = mosquitto_new(configuration.clientID, configuration.cleanSession, Unmanaged.passUnretained(context).toOpaque())
        else {
            throw .invalidURL(
                configuration.broker.description, reason: "libmosquitto could not create a client (a persistent session needs a client id)")
        }
        self.configuration = configuration
        self.connectionEvents = events
        self.handle = MosquittoHandle(raw: raw)
        self.context = context
        try check(mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, isV5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311), "protocol version")
        try apply(configuration)
        Self.installCallbacks(raw, logging: configuration.broker.usesTLS)
    }

    deinit {
        mosquitto_disconnect(handle.raw)
        mosquitto_loop_stop(handle.raw, false)  // joins: no callback runs after this
        mosquitto_destroy(handle.raw)
        context.inbox.finish()
        context.events.finish()
    }

    private func apply(_ configuration: MQTTConfiguration) throws(MQTTError) {
        let raw = handle.raw
        if let username = configuration.username {
            try check(mosquitto_username_pw_set(raw, username, configuration.password?.reveal), "username")
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes {
                mosquitto_will_set(raw, will.topic, Int32($0.count), $0.baseAddress, will.qos.rawValue, will.retain)
            }
            try check(rc, "will")
        }
        let delay = configuration.reconnectDelay
        try check(mosquitto_reconnect_delay_set(raw, max(1, delay.initial), max(delay.initial, delay.maximum), true), "reconnect delay")
        try check(mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        if let tls = configuration.tls {
            try applyTLS(tls)
        }
    }

    private func applyTLS(_ tls: MQTTConfiguration.TLS) throws(MQTTError) {
        let raw = handle.raw
        if tls.certificateFile != nil, tls.keyFile == nil {
            throw .tls("a client certificate needs a key file too")
        }
        if let ca = tls.caFile {
            let rc = mosquitto_tls_set(raw, ca, nil, tls.certificateFile, tls.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw .tls(
                    "cannot use CA file '\(ca)'\(tls.certificateFile.map { ", certificate '\($0)'" } ?? "")\(tls.keyFile.map { " or key '\($0)'" } ?? ""): \(MQTTError.libraryMessage(rc))"
                )
            }
        } else {
            try check(mosquitto_int_option(raw, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "TLS system certificates")
            if let certificate = tls.certificateFile {
                let rc = mosquitto_tls_set(raw, nil, nil, certificate, tls.keyFile, nil)
                guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                    throw .tls("cannot use certificate '\(certificate)': \(MQTTError.libraryMessage(rc))")
                }
            }
        }
        try check(mosquitto_tls_opts_set(raw, 1, nil, nil), "TLS peer verification")
        try check(mosquitto_tls_insecure_set(raw, tls.allowInsecure), "TLS hostname verification")
    }

    /// Received messages. Iterate from one task only.
    public var messages: MQTTMessages { MQTTMessages(inbox: context.inbox) }

    /// Lets `reader` read a payload of at least `minimumBytes` where libmosquitto holds it, on the
    /// network thread, instead of having it copied: what it returns comes in the message's `read`,
    /// with an empty payload; nil has the payload copied as usual. A Zigbee2MQTT device list is
    /// megabytes, and libmosquitto holds two copies of it already while it calls back. `reader` must
    /// not keep the bytes (libmosquitto frees them once the callback returns), and nothing else is
    /// read from the broker while it runs. Nil stops it.
    public func readLargePayloads(minimumBytes: Int, _ reader: (@Sendable (String, UnsafeRawBufferPointer) -> (any Sendable)?)?) {
        context.reader.withLock { current in
            current = reader.map { PayloadReader(minimumBytes: max(1, minimumBytes), $0) }
            context.readerMinimum.store(current?.minimumBytes ?? .max, ordering: .relaxed)
        }
    }

    /// Messages dropped because the consumer fell more than `inboxLimit` behind.
    public var droppedMessages: Int { context.inbox.droppedCount }

    /// Messages received and waiting to be taken, for tests that must know a burst has arrived.
    @_spi(Testing) public var waitingMessages: Int { context.inbox.waitingCount }

    public var state: ConnectionState { context.shared.withLock { $0.state } }

    /// Starts the network thread, then connects: a first attempt that fails is retried by the thread.
    public func start() throws(MQTTError) {
        try check(mosquitto_loop_start(handle.raw), "starting the network thread")
        context.transition(to: .connecting)
        let broker = configuration.broker
        let rc: Int32
        if configuration.protocolVersion == .v5, !configuration.cleanSession {
            // MQTT 5 ends a session at disconnect unless CONNECT asks for an expiry interval.
            var properties: OpaquePointer? = nil
            defer { mosquitto_property_free_all(&properties) }
            try check(
                mosquitto_property_add_int32(
                    &properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue),
                    configuration.sessionExpiry), "session expiry")
            rc = mosquitto_connect_bind_v5(handle.raw, broker.host, broker.port, configuration.keepAlive, nil, properties)
        } else {
            rc = mosquitto_connect_async(handle.raw, broker.host, broker.port, configuration.keepAlive)
        }
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue:
            break
        case MOSQ_ERR_EAI.rawValue, MOSQ_ERR_ERRNO.rawValue, MOSQ_ERR_TLS.rawValue:
            // Unresolvable, refused or a failed handshake: the network thread keeps trying.
            context.connectionEnded(rc)
        default:
            mosquitto_loop_stop(handle.raw, true)
            throw .library(operation: "connecting to \(broker)", code: rc)
        }
    }

    /// Waits until connected. Throws at once if the broker refused us, or after `timeout`.
    public func waitUntilConnected(timeout: Duration = .seconds(10)) async throws(MQTTError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = state
            switch seen {
            case .connected: return
            case .refused(let error): throw error
            case .closed: throw .shutDown
            default: break
            }
            guard ContinuousClock.now < deadline else { throw .timedOut("a connection to \(configuration.broker) (\(state))") }
            await stateChange(from: seen, before: deadline)
        }
    }

    private func stateChange(from seen: ConnectionState, before deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [context] in
                await withCheckedContinuation { context.waitForChange(from: seen, $0) }
            }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
            // Wake our own waiter so the group can finish; a spurious wake only re-checks the state.
            let waiters = context.shared.withLock { shared in
                defer { shared.stateWaiters = [] }
                return shared.stateWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
