import Automation
public import Foundation
import HomeModel
import JSON
public import Logging
public import Mappings
public import Mosquitto
public import Persistence
public import ServiceLifecycle

/// The running gateway: one broker connection, the home kept current from device topics,
/// events and state published, writes sent back to devices, mapping edits applied live.
public struct GatewayService: ServiceLifecycle.Service, CustomStringConvertible {
    public let configuration: GatewayConfiguration
    let client: MQTTClient
    /// One logger per component (`log_levels`); `log[.gateway]` for the service itself.
    let log: ComponentLoggers
    let mappings: MappingSet
    /// The mapping files as loaded at start: the broken ones are reported once running.
    let loadedMappings: MappingSet.Loaded
    let store: SQLiteHomeStore
    let health = GatewayHealth()
    let now: @Sendable () -> Date

    /// Fails when the broker settings cannot be used, the mappings folder cannot be read, or the
    /// database cannot be opened (or another homegate holds it). A mapping file with errors does not
    /// stop it: it runs with the others and says which is broken. `now` is the clock triggers run on.
    public init(configuration: GatewayConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws(GatewayStartError) {
        self.configuration = configuration
        log = ComponentLoggers(logger, configuration: configuration)
        self.now = now
        let loaded = MappingSet.load(directory: configuration.mappings, previous: [:])
        guard !loaded.folderUnreadable else { throw .mappings(loaded.diagnostics) }
        self.loadedMappings = loaded
        self.mappings = loaded.set
        do {
            store = try SQLiteHomeStore(path: configuration.database)
        } catch {
            throw .database(error)
        }
        do {
            self.client = try MQTTClient(configuration.mqttConfiguration())
        } catch {
            throw .mqtt(error)
        }
    }

    /// What ServiceGroup logs at debug: the service, not a dump of its settings and mappings.
    public var description: String { "GatewayService(broker: \(client.configuration.broker), database: \(configuration.database))" }

    public func run() async throws {
        let core = try makeCore()
        let writer = StoreWriter(store: store, logger: log[.store]) { [client, log] messages in
            GatewayRuntime.publish(messages, with: client, logger: log[.mqtt])
        }
        let runtime = GatewayRuntime(api: MQTTFrontEnd(baseTopic: configuration.baseTopic, core: core), client: client, writer: writer, log: log, now: now)
        log[.gateway].info("starting", metadata: [
            "broker": "\(client.configuration.broker)", "mappings": "\(configuration.mappings)",
            "bridges": "\(mappings.zigbee2mqtt.map(\.baseTopic))", "mqtt_accessories": "\(mappings.accessories.count)",
            "database": "\(configuration.database)", "homes": "\(core.structure.homes.count)",
            "action_sets": "\(core.actionSets.count)", "triggers": "\(core.engine.triggers.count)",
        ])
        reportMappingProblems(loadedMappings, before: [:])
        try client.start()
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await watchConnection(runtime) }
                group.addTask {
                    await consume(runtime, writer: writer)
                    writer.close()
                }
                group.addTask { await tick(runtime) }
                group.addTask { await watchMappings(runtime) }
                group.addTask { await reportDrops(runtime) }
                group.addTask { await writer.run { await runtime.resync() } }
            }
        } onGracefulShutdown: { [client, configuration, log] in
            log[.gateway].info("shutting down: publishing offline and disconnecting")
            Task { await client.shutdown(finalMessage: configuration.bridgeStatus("offline")) }
        }
        store.close()  // the writer is done: everything it was given is written or was reported
        log[.gateway].info("stopped")
    }

    /// The core over what the database holds. The loaded home is let go once the core has it, so a
    /// large one is not kept twice.
    private func makeCore() throws -> HomeCore {
        let stored = try store.load()
        return HomeCore(maxPayloadBytes: configuration.maxPayloadBytes, mappings: mappings,
                           stored: stored, clock: configuration.clockContext, missedGrace: configuration.missedGrace, now: now())
    }

    /// Logs each change once; a refused connection ends the gateway with the broker's reason.
    private func watchConnection(_ runtime: GatewayRuntime) async throws {
        var first = true
        // The same loss again and again (two gateways with one client id) is logged once a minute, with a count.
        var repeated = (reason: "", since: ContinuousClock.now, count: 0)
        for await state in client.connectionEvents {
            switch state {
            case .connected:
                health.connected()
                if repeated.count == 0 { log[.mqtt].info("connected", metadata: ["broker": "\(client.configuration.broker)"]) }
                await runtime.connected(first: first)
                first = false
            case .disconnected(let reason):
                health.disconnected("\(reason)")
                if reason == repeated.reason, ContinuousClock.now - repeated.since < .seconds(60) {
                    repeated.count += 1
                    continue
                }
                if repeated.count > 0 { log[.mqtt].warning("the connection was lost \(repeated.count) more times for the same reason") }
                repeated = (reason, .now, 0)
                log[.mqtt].warning("broker connection lost, retrying with back-off", metadata: ["reason": "\(reason)"])
            case .refused(let error):
                log[.mqtt].critical("\(error); check mqtt.username and mqtt.password")
                await client.shutdown()
                throw error
            case .connecting, .closed:
                break
            }
        }
    }

    /// Device messages and requests go to the runtime; `request/health` is answered here, from
    /// what each part last said, so it is answered even while the home is busy or the disk fails.
    private func consume(_ runtime: GatewayRuntime, writer: StoreWriter) async {
        let healthTopic = "\(configuration.baseTopic)/request/health"
        var iterator = client.messages.makeAsyncIterator()
        while var batch = await iterator.nextBatch() {
            if batch.contains(where: { $0.topic == healthTopic }) {
                let counters = await runtime.counters
                for request in batch where request.topic == healthTopic {
                    var answer: [String: JSONValue] = ["status": "ok", "data": health.report(store: writer.failing, counters: counters,
                                                                                                dropped: (client.droppedIncoming, client.droppedWhileDisconnected))]
                    answer["transaction"] = (try? JSONValue(parsing: request.payload))?["transaction"]
                    try? client.publish("\(configuration.baseTopic)/response/health", JSONValue.object(answer).serializedBytes(), qos: .atLeastOnce)
                }
                batch.removeAll { $0.topic == healthTopic }
            }
            if !batch.isEmpty { await runtime.handle(batch) }
        }
    }

    private func tick(_ runtime: GatewayRuntime) async {
        while client.state != .closed, !Task.isCancelled {
            // On time for a trigger that is due sooner; otherwise four times a second.
            try? await Task.sleep(for: await runtime.untilNextDue(limit: .milliseconds(250)))
            await runtime.tick()
        }
    }

    /// Once a minute, if messages were dropped or refused since the last look, one line says how many.
    private func reportDrops(_ runtime: GatewayRuntime) async {
        var last = (incoming: 0, outgoing: 0, oversized: 0, invalid: 0)
        var seconds = 0
        while client.state != .closed, !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))  // one second at a time: a stop must not wait a minute
            seconds += 1
            guard seconds % 60 == 0 else { continue }
            let counters = await runtime.counters
            let now = (client.droppedIncoming, client.droppedWhileDisconnected, counters.oversized, counters.invalid)
            let parts = [("dropped because the gateway fell behind", now.0 - last.incoming), ("dropped while the broker was away", now.1 - last.outgoing),
                         ("over max_payload_bytes", now.2 - last.oversized), ("refused as invalid", now.3 - last.invalid)]
                .filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }
            if !parts.isEmpty { log[.gateway].warning("in the last minute: \(parts.joined(separator: ", ")) (totals in homegate health)") }
            last = (now.0, now.1, now.2, now.3)
        }
    }

    /// Applies edits in the mappings folder. A file with errors keeps its last good version in
    /// force (or stays out, if it never loaded); the other files' edits apply all the same.
    private func watchMappings(_ runtime: GatewayRuntime) async {
        let watcher = MappingWatcher(directory: configuration.mappings)
        var last = watcher.snapshot()
        var inForce = loadedMappings
        while client.state != .closed, !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let current = watcher.snapshot()
            guard current != last else { continue }
            last = current
            let loaded = MappingSet.load(directory: configuration.mappings, previous: inForce.texts)
            guard !loaded.folderUnreadable else {
                log[.mappings].error("cannot read the mappings folder \(configuration.mappings); the mappings in force stay")
                continue
            }
            reportMappingProblems(loaded, before: inForce.broken)
            let changed = loaded.texts != inForce.texts
            inForce = loaded
            if changed { await runtime.reload(loaded.set) }
        }
    }

    /// Logs each broken file's problems and publishes `<base>/event/mapping_file/<name>` when a
    /// file breaks (`broken`) or loads again (`fixed`).
    private func reportMappingProblems(_ loaded: MappingSet.Loaded, before: [String: Bool]) {
        health.mappings(files: loaded.texts.count, broken: loaded.broken)
        for (path, keptOld) in loaded.broken.sorted(by: { $0.key < $1.key }) {
            let problems = loaded.diagnostics.filter { $0.file == path }
            for problem in problems { log[.mappings].error("\(problem)") }
            let effect = keptOld ? "its last good version stays in force" : "it is left out; its accessories are not mapped"
            log[.mappings].error("mapping file \(path) has \(problems.count) problem\(problems.count == 1 ? "" : "s"); \(effect)")
            publishMappingEvent(path, "broken", ["errors": .array(problems.map { .string($0.description) }), "kept_previous": .bool(keptOld)])
        }
        for path in before.keys.sorted() where loaded.broken[path] == nil {
            log[.mappings].notice("mapping file \(path) loads again")
            publishMappingEvent(path, "fixed", [:])
        }
    }

    private func publishMappingEvent(_ path: String, _ change: String, _ fields: [String: JSONValue]) {
        let name = (path as NSString).lastPathComponent
        var payload = fields
        payload["type"] = "mapping_file"
        payload["id"] = .string(name)
        payload["file"] = .string(path)
        payload["change"] = .string(change)
        payload["time"] = .string(instantText(now()))
        try? client.publish("\(configuration.baseTopic)/event/mapping_file/\(name)", JSONValue.object(payload).serializedBytes(), qos: .atLeastOnce)
    }
}

/// Why the gateway cannot start.
public enum GatewayStartError: Error, CustomStringConvertible {
    case mappings([Diagnostic])
    case mqtt(MQTTError)
    case database(PersistenceError)

    public var description: String {
        switch self {
        case .mappings(let diagnostics): "the mapping files have errors:\n" + diagnostics.map(\.description).joined(separator: "\n")
        case .mqtt(let error): "\(error)"
        case .database(let error): "\(error)"
        }
    }
}
