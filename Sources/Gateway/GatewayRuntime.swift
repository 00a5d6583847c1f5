import Foundation
import Logging
import Mappings
import Mosquitto

/// The single owner of the home while the gateway runs: every input (messages, ticks, mapping
/// edits, reconnects) goes through it, and what the core answers is published.
actor GatewayRuntime {
    private var core: GatewayCore
    private let client: MQTTClient
    private let logger: Logger
    private var subscribed: Set<String> = []
    private var warningWindow = (start: Date.distantPast, count: 0, suppressed: 0)

    init(core: GatewayCore, client: MQTTClient, logger: Logger) {
        self.core = core
        self.client = client
        self.logger = logger
    }

    func handle(_ batch: [MQTTMessage]) {
        publish(core.handle(batch.map { Incoming(topic: $0.topic, payload: $0.payload) }))
    }

    func tick() {
        publish(core.tick())
    }

    /// On every CONNACK: subscriptions are the client's to restore; the first time we publish the
    /// tree, and after a reconnect we ask devices for their state.
    func connected(first: Bool) async {
        await syncSubscriptions()
        if !first { core.refreshAfterReconnect() }
        publish(core.tick())
    }

    func reload(_ mappings: MappingSet) async {
        publish(core.reload(mappings))
        await syncSubscriptions()
        logger.info("mappings reloaded", metadata: ["files": "\(mappings.files.count)", "accessories": "\(core.accessories.count)"])
    }

    var counters: GatewayCounters { core.counters }

    func syncSubscriptions() async {
        let wanted = core.subscriptions
        for filter in wanted.subtracting(subscribed).sorted() {
            do {
                try await client.subscribe(filter, qos: .atLeastOnce)
                subscribed.insert(filter)
            } catch {
                logger.error("cannot subscribe", metadata: ["filter": "\(filter)", "error": "\(error)"])
            }
        }
        for filter in subscribed.subtracting(wanted).sorted() {
            try? await client.unsubscribe(filter)
            subscribed.remove(filter)
        }
    }

    private func publish(_ messages: [Outgoing]) {
        for message in messages {
            do {
                try client.publish(message.topic, message.payload, qos: message.qos == 0 ? .atMostOnce : .atLeastOnce, retain: message.retain)
            } catch {
                logger.error("cannot publish", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
            }
        }
        for notice in core.drainNotices() {
            switch notice.level {
            case .info: logger.info("\(notice.message)")
            case .warning: warn(notice.message)
            }
        }
    }

    /// At most 20 warnings per 10 s: a device flooding bad payloads must not flood the log.
    private func warn(_ message: String) {
        let now = Date()
        if now.timeIntervalSince(warningWindow.start) > 10 {
            if warningWindow.suppressed > 0 { logger.warning("\(warningWindow.suppressed) more warnings like these were not logged") }
            warningWindow = (now, 0, 0)
        }
        warningWindow.count += 1
        if warningWindow.count <= 20 { logger.warning("\(message)") } else { warningWindow.suppressed += 1 }
    }
}
