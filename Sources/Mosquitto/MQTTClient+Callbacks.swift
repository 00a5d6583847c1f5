import CMosquitto
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension MQTTClient {
    /// Non-capturing literals become C function pointers; all state travels through `obj`.
    /// Only the `_v5` setters: libmosquitto calls both v3 and v5 callbacks when both are set,
    /// and the v5 ones fire for 3.1.1 connections too.
    ///
    /// The log callback is set for TLS connections only: what it is for is the handshake's failures,
    /// which reach nothing else, and while one is set libmosquitto formats a debug line (with
    /// `vsnprintf`, into a fresh allocation) for every packet in and out, a measurable share of a
    /// reading's instructions (docs/performance.md). Without TLS its errors are a topic that is
    /// not UTF-8 (refused before it reaches libmosquitto) and a broken packet (which also ends the
    /// connection with a reason).
    static func installCallbacks(_ mosq: OpaquePointer, logging: Bool) {
        mosquitto_connect_v5_callback_set(mosq) { mosq, obj, rc, _, _ in
            acknowledgeAtOnce(mosq)
            CallbackContext.from(obj).connackArrived(mosq!, reasonCode: rc)
        }
        mosquitto_disconnect_v5_callback_set(mosq) { _, obj, rc, _ in
            CallbackContext.from(obj).connectionEnded(rc)
        }
        mosquitto_message_v5_callback_set(mosq) { mosq, obj, msg, _ in
            acknowledgeAtOnce(mosq)
            guard let msg = msg?.pointee, let topic = msg.topic else { return }
            let context = CallbackContext.from(obj)
            let count = Int(msg.payloadlen)
            var message = MQTTMessage(topic: context.topics.topic(topic), payload: [], qos: msg.qos, retain: msg.retain)
            // libmosquitto frees the message when this returns: a large payload is read where it lies
            // if a reader takes it, anything else is copied.
            let payload = UnsafeRawBufferPointer(start: msg.payload, count: count)
            if count > 0, count >= context.readerMinimum.load(ordering: .relaxed), let reader = context.reader.withLock({ $0 }),
                count >= reader.minimumBytes,
                let read = reader.read(message.topic, payload)
            {
                message.read = ReadPayload(read)
            } else if count > 0 {
                message.payload = [UInt8](payload)
            }
            context.inbox.append(message)
        }
        mosquitto_subscribe_v5_callback_set(mosq) { mosq, obj, mid, count, granted, _ in
            acknowledgeAtOnce(mosq)
            let qos = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
            CallbackContext.from(obj).acknowledge(mid, qos)
        }
        mosquitto_unsubscribe_v5_callback_set(mosq) { mosq, obj, mid, _ in
            acknowledgeAtOnce(mosq)
            CallbackContext.from(obj).acknowledge(mid, [])
        }
        mosquitto_publish_v5_callback_set(mosq) { mosq, obj, mid, reasonCode, _ in
            acknowledgeAtOnce(mosq)
            CallbackContext.from(obj).acknowledge(mid, [reasonCode])
        }
        guard logging else { return }
        mosquitto_log_callback_set(mosq) { _, obj, level, text in
            // Only errors and warnings are kept: they explain a failed TLS handshake, say.
            guard level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
            CallbackContext.from(obj).logged(String(cString: text), isError: level & MOSQ_LOG_ERR != 0)
        }
    }
}

/// Acknowledges what was read from the broker now rather than up to 40 ms later, and leaves Linux's
/// delayed-ACK ("ping-pong") mode, which it re-enters on its own whenever we answer soon after a read:
/// hence after every packet read, which is when libmosquitto calls back (at QoS 0 it reads one
/// packet per wake). A broker without `set_tcp_nodelay` (Mosquitto's default) holds its next small
/// packet under Nagle's algorithm until our ACK of the last one: with delayed ACKs that stalled a
/// reading now and then (docs/performance.md, "A stock broker"). One `setsockopt` per packet.
@inline(__always)
func acknowledgeAtOnce(_ mosq: OpaquePointer?) {
    #if os(Linux)
    guard let mosq else { return }
    let socket = mosquitto_socket(mosq)
    guard socket >= 0 else { return }
    var on: Int32 = 1
    _ = setsockopt(socket, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
}

extension CallbackContext {
    func connackArrived(_ mosq: OpaquePointer, reasonCode: Int32) {
        guard reasonCode == 0 else {
            // v3.1.1 would retry a refused CONNECT forever; a refusal is a configuration error.
            mosquitto_disconnect(mosq)
            let error = MQTTError.refused(reasonCode: reasonCode, reason: connackReason(reasonCode, v5: isV5))
            transition(to: .refused(error))
            return
        }
        // Subscribe again, announce ourselves and send what waited, all before anyone hears we are
        // connected, and under the lock a publish takes to choose between sending and queueing.
        shared.withLock { shared in
            shared.lastLoggedError = nil
            for (filter, subscription) in shared.subscriptions.sorted(by: { $0.key < $1.key }) {
                mosquitto_subscribe_v5(mosq, nil, filter, subscription.qos.rawValue, subscription.options, nil)
            }
            if let birth, shared.announced {
                publish(mosq, MQTTMessage(topic: birth.topic, payload: birth.payload, qos: birth.qos.rawValue, retain: birth.retain))
            }
            for message in shared.outbox {
                publish(mosq, message)
            }
            shared.outbox = []
            shared.state = .connected
            shared.connectedAt = .now
        }
        transition(to: .connected)
    }

    @discardableResult
    func publish(_ mosq: OpaquePointer, _ message: MQTTMessage) -> Int32 {
        message.payload.withUnsafeBytes {
            mosquitto_publish_v5(mosq, nil, message.topic, Int32($0.count), $0.baseAddress, message.qos, message.retain, nil)
        }
    }

    /// Keeps a QoS 1/2 publish for the next connection, or sends it if one came up meanwhile.
    /// Past `outboxLimit` the oldest waiting message is dropped and counted.
    func queue(_ mosq: OpaquePointer, _ message: MQTTMessage) -> Int32 {
        shared.withLock { shared in
            if shared.state.isConnected { return publish(mosq, message) }
            if shared.outbox.count >= outboxLimit {
                shared.outbox.removeFirst()
                shared.outboxDropped += 1
            }
            shared.outbox.append(message)
            return MOSQ_ERR_SUCCESS.rawValue
        }
    }

    /// A failed TLS handshake never reaches the disconnect callback; its log line is all there is.
    func logged(_ line: String, isError: Bool) {
        let report: Bool = shared.withLock { shared in
            shared.lastLoggedError = line
            switch shared.state {
            case .connecting, .disconnected: return isError && shared.state != .disconnected(reason: line)
            default: return false
            }
        }
        if report { transition(to: .disconnected(reason: line)) }
    }

    func connectionEnded(_ rc: Int32) {
        let (current, logged) = shared.withLock { ($0.state, $0.lastLoggedError) }
        switch current {
        case .refused, .closed:
            return  // already reported, and not coming back
        default:
            break
        }
        if rc == 0 {
            transition(to: .closed)
            return
        }
        var reason =
            rc == MOSQ_ERR_ERRNO.rawValue
            ? String(cString: strerror(errno))
            : MQTTError.libraryMessage(rc)
        if let logged { reason += " (\(logged))" }
        let quickDrops = shared.withLock { shared -> Int in
            let quick = shared.connectedAt.map { ContinuousClock.now - $0 < .seconds(3) } ?? false
            shared.quickDrops = quick ? shared.quickDrops + 1 : 0
            shared.connectedAt = nil
            return shared.quickDrops
        }
        let takeover =
            "another client connected with the same client id '\(clientID)', and the broker keeps one connection per id: "
            + "give each gateway its own mqtt.client_id (HOMEGATE_MQTT_CLIENT_ID)"
        if rc == 0x8E {  // MQTT 5: session taken over
            reason = "the broker took the session over: " + takeover
        } else if quickDrops >= 3 {
            reason += "; the connection was dropped right after it was made \(quickDrops) times in a row: probably " + takeover
        }
        transition(to: .disconnected(reason: reason))
    }
}
