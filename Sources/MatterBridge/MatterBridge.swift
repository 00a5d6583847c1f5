import Foundation
public import GatewayCore
import HomeModel
import JSON
public import Logging
import Matter
import MatterDNSSD
public import ServiceLifecycle
import Synchronization

/// The house as a Matter bridge, a peer adapter of the core beside the MQTT API, HTTP and the
/// HomeKit bridge: endpoint 0 the root node, endpoint 1 an Aggregator, one bridged endpoint per
/// service Matter has a device type for. Endpoint numbers are kept in the database and never
/// reused; a device away stays listed, not reachable; the known house is served from the start.
/// Invokes become the same writes an MQTT, HTTP or HomeKit write is (`perform`, credited to `matter`).
public final class MatterBridge: ServiceLifecycle.Service, Sendable {
    struct State: Sendable {
        var layout = EndpointLayout()
        var map = EndpointMap()
        /// The UDP port once serving.
        var port: Int?
        /// What avahi advertises, for health (`MatterBridge+Advertising`).
        var advertisements: JSONValue = .array([])
    }

    static let endpointsKey = "matter.endpoints"
    static let nodeKey = "matter.node"
    /// Events the bridge may fall behind by before it drops them and lays itself out from a snapshot.
    static let feedCapacity = 10_000
    /// The longest wait between two tries of a bridge that cannot serve (1 s, doubling).
    static let longestRetry: Duration = .seconds(60)

    let access: any GatewayAccess
    let settings: GatewayConfiguration.Matter
    let selection: BridgedSelection
    let logger: Logger
    let feed: PeerEventFeed
    let state = Mutex(State())
    /// The HTTP API's way in (`/api/matter`), given the node once it serves.
    let control: MatterBridgeControl?

    public convenience init(
        access: any GatewayAccess, settings: GatewayConfiguration.Matter, control: MatterBridgeControl? = nil, logger: Logger
    ) {
        self.init(access: access, settings: settings, control: control, logger: logger, feedCapacity: Self.feedCapacity)
    }

    /// With a feed of `feedCapacity` events (a test's, to fall behind on purpose).
    init(
        access: any GatewayAccess, settings: GatewayConfiguration.Matter, control: MatterBridgeControl?, logger: Logger, feedCapacity: Int
    ) {
        self.access = access
        self.settings = settings
        self.control = control
        self.logger = logger
        selection = BridgedSelection(include: settings.include, exclude: settings.exclude)
        feed = .matter(capacity: feedCapacity)
        access.events.attach(feed)
    }

    /// Serves until homegate stops; a bridge that cannot serve (its port taken) never stops the
    /// house: it is tried again with a backoff, and the log says why.
    public func run() async throws {
        await retrying(longest: Self.longestRetry) {
            try await serve()
        } failed: { reason, isNew in
            access.report(
                "matter",
                AdapterStatus(
                    section: ["serving": false, "problem": .string(reason)],
                    warnings: ["the Matter bridge does not serve: \(reason); homegate tries again every minute at the most"]))
            if isNew {
                logger.error(
                    "the Matter bridge cannot serve: \(reason); homegate runs on without it and tries again, every \(Self.longestRetry.components.seconds) s at the most"
                )
            }
        }
    }

    private func serve() async throws {
        let setup = try await MatterSetup.load(access, settings: settings)
        _ = try setup.payload()  // a passcode or discriminator the codes cannot carry stops it here
        // The feed first: what happens while the snapshot is taken is taken in after it.
        let arrivals = feed.start()
        defer { feed.stop() }
        let laidOut = access.treeChanges.generation
        if let text = try access.adapterState(Self.endpointsKey) {
            do {
                let map = try JSONDecoder().decode(EndpointMap.self, from: Data(text.utf8))
                state.withLock { $0.map = map }
            } catch {
                throw MatterError.storage("\(Self.endpointsKey) in the database is not homegate's Matter endpoint map (\(error))")
            }
        }
        // The laid-out clusters go to the node's model only: the bridge keeps no second copy (`served`).
        let model = RootNode.model(name: settings.name, layout: try await lay(await access.snapshot()))

        let (writes, writer) = AsyncStream.makeStream(of: QueuedCommand.self)
        let ramps = RampRunner(commands: writer, endpoint: { number in self.state.withLock { $0.layout.endpoints[number] } })
        let (stored, storer) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(1))
        // One instance name while running: the advertiser compares what it publishes by value.
        let instanceID = UInt64.random(in: 0...UInt64.max)
        let advertiser = MatterAdvertiser(
            discriminator: setup.discriminator,
            commissionable: { [name = settings.name] discriminator in
                .commissionable(
                    instanceID: instanceID, discriminator: discriminator, vendorID: MatterSetup.vendorID,
                    productID: MatterSetup.productID, deviceType: MatterSetup.deviceType, deviceName: name)
            }, logger: logger)
        defer { advertiser.stop() }
        let node = MatterNode(
            model: model, attestation: try setup.attestation(), logger: logger,
            persist: { storer.yield($0) },
            advertisingChanged: { [weak self] advertising in
                advertiser.update(advertising)
                self?.reportHealth(fabrics: advertising.fabrics.count)
            },
            commandHandler: { path, fields in
                switch self.state.withLock({ $0.layout.reach(path.endpoint, parent: .unsupportedCommand) }) {
                case .refused(let status): return .status(status)
                case .endpoint(let endpoint): return .status(ramps.handle(path, endpoint.writes(for: path, fields: fields), on: endpoint))
                }
            },
            writeHandler: { path, value in
                switch self.state.withLock({ $0.layout.reach(path.endpoint, parent: .unsupportedWrite) }) {
                case .refused(let status): return status
                case .endpoint(let endpoint):
                    return Self.queue(endpoint.writes(for: path, value: value), from: .attributeWrite, send: { writer.yield($0) })
                }
            })
        if let text = try access.adapterState(Self.nodeKey) {
            guard let bytes = Data(base64Encoded: text) else { throw MatterError.storage("\(Self.nodeKey) in the database is not base64") }
            try node.restore(Array(bytes))
        }
        // Basic Information's StartUp event {0: SoftwareVersion}.
        node.emitEvent(endpoint: 0, cluster: 0x0028, event: 0x00, priority: .critical, fields: [TLVElement(.context(0), .unsigned(1))])
        let server = MatterServer(port: settings.port, verifier: try setup.verifier(), node: node, logger: logger)
        defer { control?.detach() }
        // The writes and the node's state drain after the node stops: the last fabric change is kept.
        try await withThrowingTaskGroup(of: Void.self) { draining in
            draining.addTask { await self.perform(writes) }
            draining.addTask { await self.store(stored) }
            defer {
                writer.finish()
                storer.finish()
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await self.follow(arrivals, from: laidOut, node: node) }
                group.addTask { try await self.announce(server, node: node, setup: setup, advertiser: advertiser) }
                group.addTask { await self.followAdvertising(advertiser, node: node) }
                group.addTask { await ramps.run() }
                try await server.run()
                group.cancelAll()
            }
        }
    }

    /// Once the node listens: the advertisement, the health report, and the codes while it is on no fabric.
    private func announce(_ server: MatterServer, node: MatterNode, setup: MatterSetup, advertiser: MatterAdvertiser) async throws {
        while server.listeningPort() == nil { try await Task.sleep(for: .milliseconds(10)) }
        let port = server.listeningPort() ?? 0
        state.withLock { $0.port = port }
        control?.attach(node: node, setup: setup, port: port)
        reportHealth(fabrics: node.fabrics.count)
        advertiser.start(port: UInt16(port), advertising: node.advertising)
        let endpoints = state.withLock { $0.layout.clusters.count }
        logger.info(
            "Matter bridge serving", metadata: ["port": "\(port)", "endpoints": "\(endpoints)", "fabrics": "\(node.fabrics.count)"])
        if node.fabrics.isEmpty {
            // Not the codes themselves: they hold the passcode, and logs are shared in bug reports
            // (the HomeKit setup code is never logged either).
            logger.notice("the Matter bridge is not commissioned yet: `homegate matter pairing` prints the codes to add it with")
        }
    }

    /// Hands an invoke's or a write's house writes to `perform`; the status to answer with.
    static func queue(
        _ invoke: BridgedEndpoint.Invoke, from origin: QueuedCommand.Origin, send: (QueuedCommand) -> Void
    ) -> InteractionStatus {
        switch invoke {
        case .writes(let requests):
            if !requests.isEmpty { send(QueuedCommand(command: .values(.write(requests, source: .matter)), origin: origin)) }
            return .success
        case .identify(let accessory):
            send(QueuedCommand(command: .accessories(.identify(accessory)), origin: origin))
            return .success
        case .ramp:  // started by `RampRunner.handle`
            return .success
        case .refused(let status):
            return status
        }
    }

    /// The health report's `matter` section: serving on which port, how many endpoints and fabrics.
    func reportHealth(fabrics: Int) {
        let (port, endpoints, advertisements) = state.withLock { ($0.port, $0.layout.clusters.count, $0.advertisements) }
        guard let port else { return }
        access.report(
            "matter",
            AdapterStatus(section: [
                "serving": true, "port": .integer(port), "endpoints": .integer(endpoints), "fabrics": .integer(fabrics),
                "advertisements": advertisements,
            ]))
    }

    /// Invokes as the house's writes, one `perform` each (several characteristics of one device go
    /// out as one `/set`), and Identify as `accessory/identify`. A Move's refused steps are logged
    /// once per Move: it writes every 250 ms.
    private func perform(_ commands: AsyncStream<QueuedCommand>) async {
        var refusedMoves: Set<UInt64> = []
        for await queued in commands {
            let answer = await access.perform(queued.command)
            switch queued.command {
            case .accessories(.identify(let accessory)):
                // Matter expects success either way, as HomeKit does: a device that cannot show itself is logged.
                logger.info(
                    "identify asked by a Matter controller: \(answer.error.map { "\($0)" } ?? "the device was asked to show itself")",
                    metadata: ["accessory": "\(accessory)"])
            default:
                let refusals = queued.refusals(answer)
                if let move = queued.move, !refusals.isEmpty {
                    if refusedMoves.count > 1000 { refusedMoves.removeAll() }
                    guard refusedMoves.insert(move).inserted else { continue }
                }
                for refusal in refusals {
                    logger.warning(
                        "\(refusal.message)\(queued.move == nil ? "" : " (the Move's further refusals are not logged)")",
                        metadata: refusal.metadata.mapValues { .string($0) })
                }
            }
        }
    }

    /// The node's fabrics, ACL and event numbers, kept after each change.
    private func store(_ stored: AsyncStream<[UInt8]>) async {
        for await bytes in stored {
            do {
                try await access.saveAdapterState(Self.nodeKey, Data(bytes).base64EncodedString())
            } catch {
                logger.error("cannot keep the Matter node's fabrics: \(error)")
            }
        }
    }

    /// Lays the house out (numbering newcomers, saving the map when it grew) and keeps the layout.
    /// A grown map is kept only once it is saved: numbers given out but not stored could be given
    /// to other devices after a restart. Called from one task at a time (the start, then `follow`).
    func lay(_ snapshot: HomeSnapshot) async throws -> EndpointLayout {
        var map = state.withLock { $0.map }
        let before = map
        let layout = EndpointLayout.build(snapshot, selection: selection, map: &map)
        if map != before {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try await access.saveAdapterState(Self.endpointsKey, String(decoding: try encoder.encode(map), as: UTF8.self))
        }
        state.withLock { state in (state.layout, state.map) = (layout.served, map) }
        return layout
    }
}
