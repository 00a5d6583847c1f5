import Foundation
import JSON
import Logging
import Mappings
import Mosquitto

/// The single owner of the home while the gateway runs: every input (messages, ticks, mapping
/// edits, reconnects) goes through it, and what the core answers is published.
actor GatewayRuntime {
    private var api: MQTTFrontEnd
    private let client: MQTTClient
    private let log: ComponentLoggers
    private var subscribed: Set<String> = []
    private var warningWindow: (start: Duration?, count: Int, suppressed: Int) = (nil, 0, 0)
    private let writer: StoreWriter
    private let clock: any GatewayClock
    /// Answers to commands from inside the process, and the live streams' events.
    let pending: PendingAnswers
    let events: EventHub
    /// Reads device lists on the network thread with the routing of the mappings last loaded.
    private let inventories: InventoryReader

    init(
        api: MQTTFrontEnd, client: MQTTClient, writer: StoreWriter, log: ComponentLoggers, clock: any GatewayClock,
        pending: PendingAnswers, events: EventHub, inventories: InventoryReader
    ) {
        self.api = api
        self.api.sendFirst = { [logger = log[.mqtt]] writes in Self.send(writes, with: client, logger: logger) }
        self.client = client
        self.writer = writer
        self.log = log
        self.clock = clock
        self.pending = pending
        self.events = events
        self.inventories = inventories
    }

    private func now() -> Date { clock.now }

    func handle(_ batch: consuming [MQTTMessage]) {
        let largeInput = batch.contains { $0.payload.count >= 256 * 1024 || $0.read != nil }  // `read`: a device list
        let incoming = batch.map {
            Incoming(topic: $0.topic, payload: $0.payload, retained: $0.retain, read: $0.read?.value as? DeviceInput)
        }
        batch = []  // the payloads are in `incoming` alone now, which the front end lets go once it has read them
        let largeOutput = publish(api.handle(consume incoming, now: now()))
        // After a large message (a bridge's device list) or a large answer (the tree, every
        // trigger), give what it took back to the system: glibc keeps freed memory otherwise.
        if largeOutput || largeInput { releaseMemory() }
    }

    /// Gives freed heap pages back to the system (after a burst of messages, say).
    func releaseMemory() {
        #if os(Linux)
        _ = releaseFreedMemory(0)
        #endif
    }

    /// A command from inside the process (the HTTP API); its answer goes to `pending` under `id`.
    func perform(_ name: String, _ body: JSONValue, id: UInt64) {
        publish(api.perform(name, body, id: id, now: now()))
    }

    func tick() {
        if publish(api.tick(now: now())) { releaseMemory() }
    }

    /// Sends the next paced state requests to devices.
    func pace() {
        Self.send(api.pace(), with: client, logger: log[.mqtt])
    }

    /// The whole home in place of the writer's queued changes, after one of them failed.
    func resync() {
        writer.replacePending(with: api.core.snapshot())
    }

    /// How long until a timer, sun event or deadline is due (at most `limit`).
    func untilNextDue(limit: Duration) -> Duration {
        guard let next = api.core.nextDue() else { return limit }
        let seconds = next.timeIntervalSince(now())
        guard seconds > 0 else { return .zero }
        return min(limit, .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }

    /// On every CONNACK: subscriptions are the client's to restore; the first time we publish the
    /// tree, and after a reconnect we ask devices for their state.
    func connected(first: Bool) async {
        await syncSubscriptions()
        if !first { api.core.refreshAfterReconnect() }
        if publish(api.tick(now: now())) { releaseMemory() }  // the whole tree and every state, at start
    }

    func reload(_ mappings: MappingSet) async {
        if publish(api.reload(mappings, now: now())) { releaseMemory() }
        inventories.update(api.devices)
        await syncSubscriptions()
        log[.mappings].info(
            "mappings reloaded", metadata: ["files": "\(mappings.files.count)", "accessories": "\(api.core.accessories.count)"])
    }

    var counters: GatewayCounters { api.counters }

    func syncSubscriptions() async {
        let wanted = api.subscriptions
        for filter in wanted.subtracting(subscribed).sorted() {
            do {
                // Our own command topics keep the retain flag even live, so a retained one never acts.
                try await client.subscribe(filter, qos: .atLeastOnce, retainAsPublished: api.isCommandFilter(filter))
                subscribed.insert(filter)
            } catch {
                log[.mqtt].error("cannot subscribe", metadata: ["filter": "\(filter)", "error": "\(error)"])
            }
        }
        for filter in subscribed.subtracting(wanted).sorted() {
            try? await client.unsubscribe(filter)
            subscribed.remove(filter)
        }
    }

    /// Publishes what is due now and hands the rest to the store writer; true when it was a megabyte
    /// or more, for the caller to give the memory back once the output is let go.
    @discardableResult
    private func publish(_ output: GatewayOutput) -> Bool {
        Self.publish(output.messages, with: client, events: events, logger: log[.mqtt])
        pending.deliver(output.answers)
        writer.enqueue(output.store, then: output.afterCommit, answers: output.answersAfterCommit)
        drainNotices()
        return output.messages.reduce(0) { $0 + $1.payload.count } >= 1 << 20
    }

    private func drainNotices() {
        for notice in api.drainNotices() {
            switch notice.level {
            case .info: log[notice.component].info("\(notice.message)")
            case .warning: warn(notice.message, notice.component)
            }
        }
    }

    /// To the broker, and the events among them to the live streams.
    static func publish(_ messages: [Outgoing], with client: MQTTClient, events: EventHub, logger: Logger) {
        events.publish(messages)
        send(messages, with: client, logger: logger)
    }

    /// To the broker alone: writes and requests to devices, which are never events.
    static func send(_ messages: [Outgoing], with client: MQTTClient, logger: Logger) {
        for message in messages {
            do {
                try client.publish(
                    message.topic, message.payload, qos: message.qos == 0 ? .atMostOnce : .atLeastOnce, retain: message.retain)
            } catch {
                logger.error("cannot publish: \(error)")
            }
        }
    }

    /// At most 20 warnings per 10 s: a device flooding bad payloads must not flood the log.
    private func warn(_ message: String, _ component: LogComponent) {
        let now = clock.uptime
        if warningWindow.start.map({ now - $0 > .seconds(10) }) ?? true {
            if warningWindow.suppressed > 0 {
                log[.gateway].warning("\(warningWindow.suppressed) more warnings like these were not logged")
            }
            warningWindow = (now, 0, 0)
        }
        warningWindow.count += 1
        if warningWindow.count <= 20 { log[component].warning("\(message)") } else { warningWindow.suppressed += 1 }
    }
}

#if os(Linux)
/// glibc's malloc_trim, which the Glibc module does not export: returns free heap pages to the system.
@_silgen_name("malloc_trim")
private func releaseFreedMemory(_ pad: Int) -> Int32

@_silgen_name("mallopt")
private func mallocOption(_ option: Int32, _ value: Int32) -> Int32
#endif

/// glibc raises its mmap threshold to the largest block freed so far, up to 32 MB: after one
/// Zigbee2MQTT `bridge/devices` of a few megabytes, every later large buffer (the retained tree,
/// answers, a flood's batches) comes from the heap and stays resident after it is freed. A fixed
/// threshold of 128 KiB keeps large blocks in mappings of their own, returned when freed: on the
/// gateway benchmark's 1,000 devices, peak RSS 54.5 MB instead of 56–64 MB, 49 MB instead of
/// 51–58 MB after. `MALLOC_MMAP_THRESHOLD_` in the environment still decides when it is set.
public func keepLargeBlocksApart() {
    #if os(Linux)
    guard ProcessInfo.processInfo.environment["MALLOC_MMAP_THRESHOLD_"] == nil else { return }
    _ = mallocOption(-3, 128 * 1024)  // M_MMAP_THRESHOLD
    #endif
}
