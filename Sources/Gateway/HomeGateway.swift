import Automation
import Foundation
import HomeModel
import JSON
public import Logging
public import Mappings
public import Mosquitto
public import Persistence
public import ServiceLifecycle
public import UnixSignals

/// The gateway, put together: one broker connection, the home kept current from device topics,
/// events and state published, writes sent back to devices, mapping edits applied live. Each
/// long-running part is a `Service`; run them with `serviceGroup`, or add `services` to a group of
/// your own. They start together and stop one after another in the reverse order of `services`:
///
/// 0. the front ends given as `adapters` (the HTTP API) stop taking requests, and answer those under way,
/// 1. `MessageService` stops taking device messages and requests,
/// 2. `DropReporterService`, `MappingWatcherService`, `RequestPacerService` and `TickerService` stop (no more input),
/// 3. `StoreWriterService` writes what is queued and publishes the answers and events that waited for it,
/// 4. `BrokerService` publishes `<base>/bridge/state` `offline` and disconnects,
/// 5. `DatabaseService` closes the database.
public struct HomeGateway: Sendable {
    public let configuration: GatewayConfiguration
    /// In start order; a group stops them in the reverse order.
    public let services: [any ServiceLifecycle.Service]
    /// The commands, events and health for front ends other than MQTT.
    public let access: any GatewayAccess

    /// Makes a front end's service from the gateway's access (the HTTP API does so).
    public typealias Adapter = @Sendable (any GatewayAccess) throws -> any ServiceLifecycle.Service

    /// Fails when the broker settings cannot be used, the mappings folder cannot be read, or the
    /// database cannot be opened or read (or another homegate holds it). A mapping file with errors
    /// does not stop it: it runs with the others and says which is broken. `clock` is the time
    /// triggers, timers and every wait in the gateway run on.
    public init(
        configuration: GatewayConfiguration, logger: Logger, clock: any GatewayClock = SystemClock(), adapters: [Adapter] = []
    ) throws(GatewayStartError) {
        self.configuration = configuration
        let log = ComponentLoggers(logger, configuration: configuration)
        let loaded = MappingSet.load(directory: configuration.mappings, previous: [:])
        guard !loaded.folderUnreadable else { throw .mappings(loaded.diagnostics) }
        let store: SQLiteHomeStore
        let core: HomeCore
        do {
            store = try SQLiteHomeStore(path: configuration.database)
            switch store.fileMode {
            case let mode? where mode.isSecured: log[.store].notice("\(mode)")
            case let mode?: log[.store].warning("\(mode)")
            case nil: break
            }
            // The loaded home is let go once the core has it, so a large one is not kept twice.
            core = HomeCore(
                mappings: loaded.set, stored: try store.load(),
                clock: configuration.clockContext, missedGrace: configuration.missedGrace, now: clock.now)
        } catch {
            throw .database(error)
        }
        let client: MQTTClient
        let lists: MQTTClient?
        do {
            client = try MQTTClient(configuration.mqttConfiguration())
            let apart = configuration.mqtt.listsConnection && !loaded.set.zigbee2mqtt.isEmpty
            lists = apart ? try MQTTClient(configuration.listsMQTTConfiguration()) : nil
        } catch {
            throw .mqtt(error)
        }
        let health = GatewayHealth()
        let events = EventBroadcast()
        let tree = TreeChanges()
        let writer = StoreWriter(store: store, logger: log[.store], clock: clock)
        let machine = HomeMachine(core: core, maxPayloadBytes: configuration.maxPayloadBytes)
        // A bridge's device list (megabytes with a thousand devices) is read on the network thread
        // where libmosquitto holds it, rather than copied beside libmosquitto's own two copies first.
        let inventories = InventoryReader(machine.devices)
        client.readLargePayloads(minimumBytes: 16 * 1024) { topic, payload in inventories.read(topic, payload) }
        lists?.readLargePayloads(minimumBytes: 16 * 1024) { topic, payload in inventories.read(topic, payload) }
        let trees = TreePublisher(topic: "\(configuration.baseTopic)/accessories", main: client, lists: lists, log: log[.mqtt])
        let mappingReport = MappingReport(health: health, log: log[.mappings])
        log[.gateway].info(
            "starting",
            metadata: [
                "broker": "\(client.configuration.broker)", "mappings": "\(configuration.mappings)",
                "bridges": "\(loaded.set.zigbee2mqtt.map(\.baseTopic))", "mqtt_accessories": "\(loaded.set.accessories.count)",
                "database": "\(configuration.database)", "homes": "\(core.structure.homes.count)",
                "action_sets": "\(core.automationCounts.actionSets)", "triggers": "\(core.automationCounts.triggers)",
            ])
        let runtime = Runtime(
            machine: machine, baseTopic: configuration.baseTopic, client: client, lists: lists, trees: trees, writer: writer,
            log: log, clock: clock, events: events, tree: tree, inventories: inventories,
            atStart: mappingReport.report(loaded, before: [:]))
        let writerDone = Latch()
        access = RuntimeAccess(
            runtime: runtime, events: events, treeChanges: tree, timeZone: core.timeZone, store: store, health: health
        ) { [runtime, writer, client, health] in
            health.report(
                store: writer.failing, counters: await runtime.counters,
                dropped: (client.droppedIncoming, client.droppedWhileDisconnected))
        }
        var adapted: [any ServiceLifecycle.Service] = []
        for adapter in adapters {
            do {
                adapted.append(try adapter(access))
            } catch {
                throw .adapter(error)
            }
        }
        services =
            [
                DatabaseService(store: store, writerDone: writerDone, log: log[.gateway]),
                BrokerService(client: client, runtime: runtime, health: health, offline: configuration.bridgeStatus("offline"), log: log),
                TreeService(publisher: trees),
                StoreWriterService(writer: writer, runtime: runtime, done: writerDone),
                TickerService(runtime: runtime, clock: clock),
                RequestPacerService(runtime: runtime),
                MappingWatcherService(
                    directory: configuration.mappings, loaded: loaded, runtime: runtime, report: mappingReport, clock: clock),
                DropReporterService(client: client, runtime: runtime, log: log[.gateway], clock: clock),
            ] + (lists.map { [ListsService(client: $0, runtime: runtime, health: health, log: log)] } ?? []) + [
                MessageService(client: client, runtime: runtime, writer: writer, health: health, baseTopic: configuration.baseTopic),
            ] + adapted
    }

    /// A group running the gateway's services. One that ends or throws stops the others in order;
    /// the group rethrows the first error (a refused connection, say).
    public func serviceGroup(signals: [UnixSignal] = [], logger: Logger) -> ServiceGroup {
        ServiceGroup(
            configuration: .init(
                services: services.map {
                    ServiceGroupConfiguration.ServiceConfiguration(
                        service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                gracefulShutdownSignals: signals, logger: logger))
    }
}

/// Why the gateway cannot start.
public enum GatewayStartError: Error, CustomStringConvertible {
    case mappings([Diagnostic])
    case mqtt(MQTTError)
    case database(PersistenceError)
    /// A front end could not be set up (the HTTP API's address or token, say).
    case adapter(any Error)

    public var description: String {
        switch self {
        case .mappings(let diagnostics): "the mapping files have errors:\n" + diagnostics.map(\.description).joined(separator: "\n")
        case .mqtt(let error): "\(error)"
        case .database(let error): "\(error)"
        case .adapter(let error): "\(error)"
        }
    }
}
