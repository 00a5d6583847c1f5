import Foundation
import JSON
import Logging
import Mappings
import Mosquitto

extension HomeGateway {
    /// The running gateway's owner of the home: the one place the machine (`HomeMachine`) is
    /// stepped while the gateway runs. Every input goes through it (messages, ticks, mapping edits,
    /// reconnects, commands from the front ends), and each step's output goes to every peer the same
    /// way: device messages to the broker first, the events to the live streams, MQTT's rendering to
    /// the broker, typed answers to whoever asked, store changes to the writer.
    actor Runtime {
        private var machine: HomeMachine
        /// The MQTT API: a peer of the front ends, reading its topics among the device messages.
        private var mqtt: MQTTAPI
        private let client: MQTTClient
        /// The connection for the bridges' device lists, when they come apart (`mqtt.lists_connection`).
        private let lists: MQTTClient?
        private let log: ComponentLoggers
        private var subscribed: Set<String> = []
        private var listsSubscribed: Set<String> = []
        /// Whether the main connection has subscribed once: the lists wait for it, or the state a
        /// device is asked for once its list is read could come back before anything listens.
        private var mainSubscribed = false
        /// The MQTT API's messages from steps before the first subscriptions held: the known house's
        /// tree and states at start, while the broker may not be up yet (docker compose starts both
        /// at once). At QoS 0 they would be lost to a connection not yet made, and the tree never
        /// sent again while the house stays the same; or they would go out before anything listens
        /// for the commands they invite. They go once the subscriptions hold. A retained topic keeps
        /// its newest message; of the other messages (events, replies) the first 10,000 wait.
        private var held = HeldMessages(limit: 10_000)
        private var warningWindow: (start: Duration?, count: Int, suppressed: Int) = (nil, 0, 0)
        private let writer: StoreWriter
        private let clock: any GatewayClock
        /// Every event, typed, for the live streams.
        let events: EventBroadcast
        /// Raised once per step that changed the accessory tree, for the front ends that lay it out.
        let tree: TreeChanges
        /// Commands from inside the process waiting for their answers.
        private var waiting: [Ticket: CheckedContinuation<Answer, Never>] = [:]
        /// Set once the gateway stops: new commands are refused.
        private var stopped = false
        /// Reads device lists on the network thread with the routing of the mappings last loaded.
        private let inventories: InventoryReader
        /// Events from before the broker connection (mapping files broken at start), told once it is up.
        private var atStart: [HomeEvent]

        /// Renders and publishes a large house's tree after the step, off the runtime (`MQTTAPI.treeApart`).
        private let trees: TreePublisher?

        init(
            machine: HomeMachine, baseTopic: String, client: MQTTClient, lists: MQTTClient? = nil, trees: TreePublisher? = nil,
            writer: StoreWriter, log: ComponentLoggers, clock: any GatewayClock, events: EventBroadcast, tree: TreeChanges,
            inventories: InventoryReader, atStart: [HomeEvent] = []
        ) {
            self.tree = tree
            self.atStart = atStart
            self.trees = trees
            var machine = machine
            machine.listsApart = lists != nil
            self.machine = machine
            mqtt = MQTTAPI(baseTopic: baseTopic)
            mqtt.treeApart = trees != nil
            self.client = client
            self.lists = lists
            self.writer = writer
            self.log = log
            self.clock = clock
            self.events = events
            self.inventories = inventories
        }

        private func now() -> Date { clock.now }

        func handle(_ batch: consuming [MQTTMessage]) async {
            let largeInput = batch.contains { $0.payload.count >= 256 * 1024 || $0.read != nil }  // `read`: a device list
            let lists = machine.listsApart && batch.contains { machine.devices.isInventory($0.topic) || $0.read != nil }
            let incoming = batch.map {
                Incoming(topic: $0.topic, payload: $0.payload, retained: $0.retain, read: $0.read?.value as? DeviceInput)
            }
            batch = []  // the payloads are in `incoming` alone now, which the machine lets go once it has read them
            let largeOutput = deliver(machine.handle(consume incoming, peer: &mqtt, now: now()))
            // After a large message (a bridge's device list) or a large answer (the tree, every
            // trigger), give what it took back to the system: glibc keeps freed memory otherwise.
            if largeOutput || largeInput { releaseMemory() }
            // A device named `kitchen/light` is subscribed to by name (`DeviceSources.subscriptions(listsApart:)`).
            if lists { await syncSubscriptions() }
        }

        /// Gives freed heap pages back to the system (after a burst of messages, say).
        func releaseMemory() { returnFreedMemory() }

        /// A command from inside the process (the HTTP API, HomeKit, Matter), answered at once for a read of
        /// the home, once stored for a change, when the device reports for a read (3 s at most).
        func perform(_ command: HomeCommand) async -> Answer {
            guard !stopped else { return .stopping }
            return await withCheckedContinuation { continuation in
                let (ticket, output) = machine.perform(command, now: now())
                waiting[ticket] = continuation
                deliver(output)
            }
        }

        /// The home as it is now, for front ends that serve a whole tree.
        func snapshot() -> HomeSnapshot {
            HomeSnapshot(
                accessories: machine.core.accessories, lastSeen: machine.core.lastSeen, structure: machine.core.structure,
                inventoriesHeard: machine.core.inventoriesHeard)
        }

        var inventoriesHeard: Bool { machine.core.inventoriesHeard }

        /// Events from beside the core (mapping files), to every front end.
        func announce(_ events: [HomeEvent]) {
            guard !events.isEmpty else { return }
            deliver(machine.announce(events, now: now()))
        }

        func tick() {
            if deliver(machine.tick(now: now())) { releaseMemory() }
        }

        /// Sends the next paced state requests to devices.
        func pace() {
            send(machine.pace())
        }

        /// What waited for the store, once it is committed (or could not be: `unstored` says why).
        func committed(_ held: [HeldEffects], unstored: String?) {
            for step in held { deliver(machine.committed(step.effects, time: step.time, unstored: unstored)) }
        }

        /// The whole home in place of the writer's queued changes, after one of them failed.
        func resync() {
            writer.replacePending(with: machine.core.snapshot())
        }

        /// The gateway has stopped: whoever still waits for an answer is told so, and new commands are refused.
        func stop() {
            stopped = true
            let left = waiting
            waiting = [:]
            for continuation in left.values { continuation.resume(returning: .stopping) }
        }

        /// How long until a timer, sun event or deadline is due (at most `limit`).
        func untilNextDue(limit: Duration) -> Duration {
            guard let next = machine.nextDue() else { return limit }
            let seconds = next.timeIntervalSince(now())
            guard seconds > 0 else { return .zero }
            return min(limit, .milliseconds(Int64((seconds * 1000).rounded(.up))))
        }

        /// On every CONNACK: subscriptions are the client's to restore; the first time we publish the
        /// tree, and after a reconnect we ask devices for their state.
        func connected(first: Bool) async {
            await syncSubscriptions()
            mainSubscribed = true
            sendHeld()
            await syncListSubscriptions()
            trees?.connected()
            client.announce()  // "online" at start once the subscriptions hold; after a reconnect it went out already
            if !first { machine.refreshAfterReconnect() }
            if deliver(machine.tick(now: now())) { releaseMemory() }  // the whole tree and every state, at start
            announce(atStart)
            atStart = []
        }

        func reload(_ mappings: MappingSet) async {
            if deliver(machine.reload(mappings, now: now())) { releaseMemory() }
            inventories.update(machine.devices)
            await syncSubscriptions()
            await syncListSubscriptions()
            log[.mappings].info(
                "mappings reloaded", metadata: ["files": "\(mappings.files.count)", "accessories": "\(machine.core.accessories.count)"])
        }

        var counters: GatewayCounters { mqtt.counted(machine.counters) }

        /// On every CONNACK of the device lists' connection: the client restores what it held, the
        /// first time there is nothing to restore.
        func listsConnected() async {
            await syncListSubscriptions()
            trees?.connected()
        }

        /// The broker refused the device lists' connection (an ACL on client ids, a limit of
        /// connections): the lists come on the main connection, as with `mqtt.lists_connection: false`.
        func listsRefused() async {
            machine.listsApart = false
            listsSubscribed = []
            trees?.useMainConnection()
            await syncSubscriptions()
        }

        private func syncListSubscriptions() async {
            guard let lists, mainSubscribed else { return }
            let wanted = machine.listSubscriptions
            for filter in wanted.subtracting(listsSubscribed).sorted() {
                do {
                    try await lists.subscribe(filter, qos: .atLeastOnce)
                    listsSubscribed.insert(filter)
                } catch {
                    log[.mqtt].error("cannot subscribe", metadata: ["filter": "\(filter)", "error": "\(error)", "connection": "lists"])
                }
            }
            for filter in listsSubscribed.subtracting(wanted).sorted() {
                try? await lists.unsubscribe(filter)
                listsSubscribed.remove(filter)
            }
        }

        func syncSubscriptions() async {
            let wanted = machine.subscriptions.union(mqtt.topics.subscriptions)
            for filter in wanted.subtracting(subscribed).sorted() {
                do {
                    // Our own command topics keep the retain flag even live, so a retained one never acts.
                    try await client.subscribe(filter, qos: .atLeastOnce, retainAsPublished: mqtt.isCommandFilter(filter))
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

        /// A step's output to its peers, each reading it the same way: device writes first, then the
        /// events (their JSON written once in the step) to the live streams, MQTT's rendering of it to
        /// the broker, the answers to who asked in the process, and the store changes (with what waits
        /// for them) to the writer. True when it was a megabyte or more, for the caller to give the
        /// memory back once the output is let go.
        @discardableResult
        private func deliver(_ output: HomeMachine.Output) -> Bool {
            send(output.devices)
            // The live streams before the broker: a stream client hears of a change no later than MQTT does.
            events.publish(output.events)
            // Before the tree message goes: whoever has seen it can count on the generation being raised.
            if output.treeChanged { tree.raise() }
            let rendered = mqtt.render(output)
            publish(rendered.messages)
            if let accessories = rendered.apart { trees?.enqueue(accessories) }
            for reply in output.replies {
                waiting.removeValue(forKey: reply.ticket)?.resume(returning: Answer(reply, unstored: output.unstored))
            }
            writer.enqueue(output.store, then: output.afterCommit, at: output.time)
            drainNotices()
            return output.isLarge || rendered.isLarge
        }

        private func drainNotices() {
            defer { mqtt.notices = [] }
            for notice in machine.drainNotices() + mqtt.notices {
                switch notice.level {
                case .info: log[notice.component].info("\(notice.message)")
                case .warning: warn(notice.message, notice.component)
                }
            }
        }

        /// The MQTT API's messages: kept in `held` until the first subscriptions hold.
        private func publish(_ messages: [Outgoing]) {
            guard !mainSubscribed else { return send(messages) }
            for message in messages { held.hold(message) }
        }

        private func sendHeld() {
            guard !held.isEmpty else { return }
            let (messages, dropped) = held.release()
            send(messages)
            if dropped > 0 {
                log[.mqtt].warning(
                    "\(dropped) events and replies from before the broker connection were not published (the first \(held.limit) waited for it, and went)")
            }
        }

        private func send(_ messages: [Outgoing]) {
            for message in messages {
                do {
                    try client.publish(
                        message.topic, message.payload, qos: message.qos == 0 ? .atMostOnce : .atLeastOnce, retain: message.retain)
                } catch {
                    log[.mqtt].error("cannot publish: \(error)")
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
}

/// Gives freed heap pages back to the system: glibc keeps what a large piece of work (a device
/// list read, its JSON written to the database) freed otherwise.
func returnFreedMemory() {
    #if os(Linux)
    _ = releaseFreedMemory(0)
    #endif
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
