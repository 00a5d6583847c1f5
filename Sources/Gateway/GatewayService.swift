import Automation
public import Foundation
import HomeModel
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
    let logger: Logger
    let mappings: MappingSet
    let store: SQLiteHomeStore
    let now: @Sendable () -> Date

    /// Fails when the broker settings cannot be used, a mapping file has errors, or the database
    /// cannot be opened (or another homegate holds it). `now` is the clock triggers run on.
    public init(configuration: GatewayConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws(GatewayStartError) {
        self.configuration = configuration
        self.logger = logger
        self.now = now
        let (mappings, diagnostics) = MappingSet.load(directory: configuration.mappings)
        guard diagnostics.isEmpty else { throw .mappings(diagnostics) }
        self.mappings = mappings
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
        let writer = StoreWriter(store: store, logger: logger) { [client, logger] messages in
            GatewayRuntime.publish(messages, with: client, logger: logger)
        }
        let runtime = GatewayRuntime(core: core, client: client, writer: writer, logger: logger, now: now)
        logger.info("starting", metadata: [
            "broker": "\(client.configuration.broker)", "mappings": "\(configuration.mappings)",
            "bridges": "\(mappings.zigbee2mqtt.map(\.baseTopic))", "mqtt_accessories": "\(mappings.accessories.count)",
            "database": "\(configuration.database)", "homes": "\(core.structure.homes.count)",
            "action_sets": "\(core.actionSets.count)", "triggers": "\(core.engine.triggers.count)",
        ])
        try client.start()
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await watchConnection(runtime) }
                group.addTask {
                    await consume(runtime)
                    writer.close()
                }
                group.addTask { await tick(runtime) }
                group.addTask { await watchMappings(runtime) }
                group.addTask { await writer.run { await runtime.resync() } }
            }
        } onGracefulShutdown: { [client, configuration, logger] in
            logger.info("shutting down: publishing offline and disconnecting")
            Task { await client.shutdown(finalMessage: configuration.bridgeStatus("offline")) }
        }
        store.close()  // the writer is done: everything it was given is written or was reported
        logger.info("stopped")
    }

    /// The core over what the database holds. The loaded home is let go once the core has it, so a
    /// large one is not kept twice.
    private func makeCore() throws -> GatewayCore {
        let stored = try store.load()
        return GatewayCore(baseTopic: configuration.baseTopic, maxPayloadBytes: configuration.maxPayloadBytes, mappings: mappings,
                           stored: stored, clock: configuration.clockContext, missedGrace: configuration.missedGrace, now: now())
    }

    /// Logs each change once; a refused connection ends the gateway with the broker's reason.
    private func watchConnection(_ runtime: GatewayRuntime) async throws {
        var first = true
        for await state in client.connectionEvents {
            switch state {
            case .connected:
                logger.info("connected", metadata: ["broker": "\(client.configuration.broker)"])
                await runtime.connected(first: first)
                first = false
            case .disconnected(let reason):
                logger.warning("broker connection lost, retrying with back-off", metadata: ["reason": "\(reason)"])
            case .refused(let error):
                logger.critical("\(error); check mqtt.username and mqtt.password")
                await client.shutdown()
                throw error
            case .connecting, .closed:
                break
            }
        }
    }

    private func consume(_ runtime: GatewayRuntime) async {
        var iterator = client.messages.makeAsyncIterator()
        while let batch = await iterator.nextBatch() {
            await runtime.handle(batch)
        }
    }

    private func tick(_ runtime: GatewayRuntime) async {
        while client.state != .closed, !Task.isCancelled {
            // On time for a trigger that is due sooner; otherwise four times a second.
            try? await Task.sleep(for: await runtime.untilNextDue(limit: .milliseconds(250)))
            await runtime.tick()
        }
    }

    private func watchMappings(_ runtime: GatewayRuntime) async {
        let watcher = MappingWatcher(directory: configuration.mappings)
        var last = watcher.snapshot()
        while client.state != .closed, !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let current = watcher.snapshot()
            guard current != last else { continue }
            last = current
            let (mappings, diagnostics) = MappingSet.load(directory: configuration.mappings)
            guard diagnostics.isEmpty else {
                for diagnostic in diagnostics { logger.error("\(diagnostic)") }
                logger.error("mapping edit rejected; the previous mappings stay in force")
                continue
            }
            await runtime.reload(mappings)
        }
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
