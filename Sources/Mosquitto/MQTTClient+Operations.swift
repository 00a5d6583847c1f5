import CMosquitto
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension MQTTClient {
    /// Holds `filter` from now on (made again on every reconnect). When connected, waits for the SUBACK.
    /// `retainAsPublished` (MQTT 5 only; ignored on 3.1.1) keeps the retain flag on messages that were
    /// published retained while we were subscribed, so a receiver can tell them from live ones.
    public func subscribe(_ filter: String, qos: QoS = .atLeastOnce, retainAsPublished: Bool = false) async throws(MQTTError) {
        if let problem = MQTTTopic.problem(filter: filter) { throw .invalidTopic(filter, reason: problem) }
        let options: Int32 =
            retainAsPublished && configuration.protocolVersion == .v5 ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
        let result = await sendAndAwait { shared, raw, mid in
            shared.subscriptions[filter] = (qos, options)
            return mosquitto_subscribe_v5(raw, &mid, filter, qos.rawValue, options, nil)
        }
        try verify(result, "subscribing to '\(filter)'")
        if let granted = result.acknowledgement, granted.contains(where: { $0 >= 0x80 }) {
            _ = context.shared.withLock { $0.subscriptions.removeValue(forKey: filter) }
            throw .subscriptionRefused(filter: filter)
        }
    }

    /// Publishes the birth now, with `birthWaitsForAnnounce`: once, after the first subscriptions.
    /// From then on it goes out on every CONNACK.
    public func announce() {
        context.shared.withLock { shared in
            guard !shared.announced else { return }
            shared.announced = true
            if let birth = context.birth, case .connected = shared.state {
                context.publish(handle.raw, MQTTMessage(topic: birth.topic, payload: birth.payload, qos: birth.qos.rawValue, retain: birth.retain))
            }
        }
    }

    public func unsubscribe(_ filter: String) async throws(MQTTError) {
        let result = await sendAndAwait { shared, raw, mid in
            shared.subscriptions.removeValue(forKey: filter)
            return mosquitto_unsubscribe_v5(raw, &mid, filter, nil)
        }
        try verify(result, "unsubscribing from '\(filter)'")
    }

    /// Queues a publish. QoS 1 and 2 messages published while the broker is away go out once it is back.
    public func publish(_ topic: String, _ payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false) throws(MQTTError) {
        if let problem = MQTTTopic.problem(publishing: topic) { throw .invalidTopic(topic, reason: problem) }
        if qos > .atMostOnce, !context.state.isConnected {
            let message = MQTTMessage(topic: topic, payload: payload, qos: qos.rawValue, retain: retain)
            return try check(context.queue(handle.raw, message), "publishing to '\(topic)'")
        }
        let rc = payload.withUnsafeBytes {  // copied by libmosquitto before it returns
            mosquitto_publish_v5(handle.raw, nil, topic, Int32($0.count), $0.baseAddress, qos.rawValue, retain, nil)
        }
        // The connection dropped a moment ago: QoS 0 is lost by definition, libmosquitto keeps QoS 1/2.
        if rc == MOSQ_ERR_NO_CONN.rawValue { return }
        try check(rc, "publishing to '\(topic)'")
    }

    /// Messages received but dropped because more than `inboxLimit` were waiting to be handled.
    public var droppedIncoming: Int { context.inbox.droppedCount }

    /// QoS 1/2 publishes dropped because more than `outboxLimit` were waiting for the broker.
    public var droppedWhileDisconnected: Int { context.shared.withLock { $0.outboxDropped } }

    public func publish(_ topic: String, _ payload: String, qos: QoS = .atMostOnce, retain: Bool = false) throws(MQTTError) {
        try publish(topic, Array(payload.utf8), qos: qos, retain: retain)
    }

    /// Publishes and waits for the broker's acknowledgement (QoS 1/2) or the write (QoS 0), up to `timeout`.
    public func publishAndWait(
        _ topic: String, _ payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = false,
        timeout: Duration = .seconds(2)
    ) async throws(MQTTError) {
        let result = await sendAndAwait(timeout: timeout) { _, raw, mid in
            payload.withUnsafeBytes {
                mosquitto_publish_v5(raw, &mid, topic, Int32($0.count), $0.baseAddress, qos.rawValue, retain, nil)
            }
        }
        try verify(result, "publishing to '\(topic)'")
        if result.acknowledgement == nil { throw .timedOut("the broker to acknowledge '\(topic)'") }
    }

    /// Publishes `finalMessage` (the offline status, say) and waits briefly for it, then disconnects.
    /// A clean DISCONNECT suppresses the will, so the final message is ours to send.
    public func shutdown(finalMessage: MQTTConfiguration.StatusMessage? = nil) async {
        if let final = finalMessage, state.isConnected {
            try? await publishAndWait(final.topic, final.payload, qos: final.qos, retain: final.retain, timeout: .seconds(1))
        }
        context.transition(to: .closed)
        mosquitto_disconnect(handle.raw)
        mosquitto_loop_stop(handle.raw, false)
        context.inbox.finish()
        context.events.finish()
    }

    // MARK: - Acknowledged sends

    /// What a send returned, and the message id an acknowledgement is awaited for.
    final class SendOutcome: Sendable {
        let state = Mutex<(code: Int32, waitingFor: Int32?)>((0, nil))
    }

    struct SendResult {
        var code: Int32
        var acknowledgement: [Int32]?
    }

    /// Sends under the lock that the acknowledgement callback takes, so the waiter is registered
    /// before the acknowledgement can be looked up. A send refused for want of a connection
    /// returns at once: subscriptions are made again on the next CONNACK.
    private func sendAndAwait(
        timeout: Duration? = nil,
        _ send: @escaping @Sendable (inout CallbackContext.Shared, OpaquePointer, inout Int32) -> Int32
    ) async -> SendResult {
        let context = self.context
        let handle = self.handle
        let outcome = SendOutcome()
        let acknowledged = { @Sendable () async -> [Int32]? in
            await withCheckedContinuation { continuation in
                let (rc, mid, waiting) = context.shared.withLock { shared in
                    var mid: Int32 = 0
                    let rc = send(&shared, handle.raw, &mid)
                    guard rc == MOSQ_ERR_SUCCESS.rawValue, shared.state.isConnected else { return (rc, mid, false) }
                    shared.acknowledgements[mid] = continuation
                    return (rc, mid, true)
                }
                outcome.state.withLock { $0 = (rc, waiting ? mid : nil) }
                if !waiting { continuation.resume(returning: nil) }
            }
        }
        guard let timeout else {
            let acknowledgement = await acknowledged()
            return SendResult(code: outcome.state.withLock { $0.code }, acknowledgement: acknowledgement)
        }
        // The acknowledgement, or nil once `timeout` has passed: the waiter is then answered with nil.
        let acknowledgement = await withTaskGroup(of: [Int32]??.self) { group in
            group.addTask { .some(await acknowledged()) }
            group.addTask {
                guard (try? await Task.sleep(for: timeout)) != nil else { return .none }
                if let mid = outcome.state.withLock({ $0.waitingFor }) { context.acknowledge(mid, nil) }
                return .none
            }
            var answer: [Int32]?
            for await result in group {
                guard case .some(let acknowledgement) = result else { continue }
                answer = acknowledgement
                group.cancelAll()  // the sleep need not run out
            }
            return answer
        }
        return SendResult(code: outcome.state.withLock { $0.code }, acknowledgement: acknowledgement)
    }

    private func verify(_ result: SendResult, _ operation: String) throws(MQTTError) {
        if result.code == MOSQ_ERR_NO_CONN.rawValue { return }
        try check(result.code, operation)
    }
}

extension CallbackContext {
    var state: ConnectionState { shared.withLock { $0.state } }
}

extension MQTTClient {
    /// Cuts the TCP connection without a DISCONNECT, as a crash or a pulled cable would:
    /// the broker then sends the will, and libmosquitto reconnects. For fault tests.
    @_spi(Testing) public func severConnection() {
        let fd = mosquitto_socket(handle.raw)
        if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }
}
