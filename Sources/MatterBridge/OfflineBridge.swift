public import GatewayCore
import Logging
public import Matter
import Synchronization

/// The bridge's side of a controller's invokes and attribute writes with no network and no core
/// behind it: a snapshot laid out as the serving bridge lays it out, each invoke and write answered
/// as it answers them (the same `BridgedEndpoint` translation, `RampRunner` and `queue`), and the
/// house commands they come to collected instead of performed. The fuzzer's way in (`matter-bridge`).
public final class OfflineBridge: Sendable {
    let layout: EndpointLayout
    let ramps: RampRunner
    private let sent = Queue()

    /// Where the commands collect: a class, so that the runner's closure shares it.
    private final class Queue: Sendable {
        let commands = Mutex<[HomeCommand]>([])
        func append(_ queued: QueuedCommand) { commands.withLock { $0.append(queued.command) } }
    }

    /// Every accessory of `snapshot` bridged, numbered from 2 in its order.
    public convenience init(_ snapshot: HomeSnapshot) {
        var map = EndpointMap()
        self.init(layout: EndpointLayout.build(snapshot, selection: .everything, map: &map))
    }

    private init(layout: EndpointLayout) {
        self.layout = layout
        ramps = RampRunner(send: { [sent] command in sent.append(command) }, endpoint: { [layout] number in layout.endpoints[number] })
    }

    /// The same layout with no Move running and nothing queued (laying out is the costly part).
    public func restarted() -> OfflineBridge { OfflineBridge(layout: layout) }

    /// The bridged endpoints, in order.
    public var endpoints: [UInt16] { layout.parts }

    /// An endpoint's clusters as laid out.
    public func clusters(_ endpoint: UInt16) -> [UInt32: DataModel.Cluster] { layout.clusters[endpoint] ?? [:] }

    /// As the serving bridge's node answers an application invoke.
    public func invoke(_ path: CommandPath, fields: TLVValue, now: ContinuousClock.Instant) -> InteractionStatus {
        switch layout.reach(path.endpoint, parent: .unsupportedCommand) {
        case .refused(let status): status
        case .endpoint(let endpoint): ramps.handle(path, endpoint.writes(for: path, fields: fields), on: endpoint, now: now)
        }
    }

    /// As the serving bridge's node answers an application attribute write.
    public func write(_ path: AttributePath, value: TLVValue) -> InteractionStatus {
        switch layout.reach(path.endpoint, parent: .unsupportedWrite) {
        case .refused(let status): status
        case .endpoint(let endpoint): MatterBridge.queue(endpoint.writes(for: path, value: value), from: .attributeWrite, send: sent.append)
        }
    }

    /// Steps the running Moves as `RampRunner.run` does at `now`.
    public func tick(now: ContinuousClock.Instant) { ramps.tick(now: now) }

    /// A node with the bridge's model (root node, Aggregator, the endpoints) whose application
    /// invokes and writes come here. It logs nothing: it logs each invoke at info.
    public func node(name: String = "homegate") -> MatterNode {
        MatterNode(
            model: RootNode.model(name: name, layout: layout), attestation: nil,
            logger: Logger(label: "matter", factory: { _ in SwiftLogNoOpLogHandler() }),
            commandHandler: { [self] path, fields in .status(invoke(path, fields: fields, now: .now)) },
            writeHandler: { [self] path, value in write(path, value: value) })
    }

    /// The house commands queued so far, in order; the queue is emptied.
    public func takeCommands() -> [HomeCommand] {
        sent.commands.withLock { sent in
            defer { sent = [] }
            return sent
        }
    }
}
