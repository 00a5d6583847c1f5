public import Logging
import Synchronization

/// The device's application layer: the data model with endpoint 0's commissioning clusters, and
/// the Interaction Model's Read, Write, Invoke and Timed actions over it, each checked against
/// access control. One lock guards the state; nothing in here waits.
public final class MatterNode: Sendable {
    let state: Mutex<NodeState>
    let logger: Logger
    let advertisingChanged: (@Sendable (Advertising) -> Void)?

    /// What the node should be advertised as: operationally per fabric, and commissionable with
    /// `openWindow`'s discriminator while an administrator's window is open (or while on no fabric).
    public struct Advertising: Sendable, Equatable {
        public var fabrics: [Fabric]
        public var openWindow: UInt16?

        public init(fabrics: [Fabric], openWindow: UInt16?) {
            self.fabrics = fabrics
            self.openWindow = openWindow
        }

        public static func == (a: Advertising, b: Advertising) -> Bool {
            a.fabrics.map(\.identity) == b.fabrics.map(\.identity) && a.openWindow == b.openWindow
        }
    }
    /// Answers an invoke of an application cluster (OnOff, LevelControl, ColorControl, …) on the
    /// node's lock: it must return at once and must not call back into the node; what the command
    /// changes comes back later through `update` or `setAttribute`.
    public typealias CommandHandler = @Sendable (CommandPath, TLVValue) -> CommandResult
    /// Answers a write of an application attribute (a thermostat's setpoint) as `CommandHandler`
    /// answers an invoke: at once, on the node's lock; the new value comes back through `update`.
    public typealias WriteHandler = @Sendable (AttributePath, TLVValue) -> InteractionStatus

    let persist: (@Sendable ([UInt8]) -> Void)?
    let changed: AsyncStream<Void>.Continuation
    /// An element after each change a subscription may report (coalesced: one pending at most).
    public let changes: AsyncStream<Void>
    private let started = ContinuousClock.now

    /// `model` holds the application's endpoints with Basic Information and the Descriptor on
    /// endpoint 0; the node adds the commissioning clusters and the global attributes.
    /// `advertisingChanged` hears of each change to the fabrics or the commissioning window.
    /// `persist` is given the fabrics, ACL and labels the node keeps after each change to them; `restore` takes them back.
    public init(
        model: DataModel, attestation: DeviceAttestation?, logger: Logger = Logger(label: "matter"),
        persist: (@Sendable ([UInt8]) -> Void)? = nil, advertisingChanged: (@Sendable (Advertising) -> Void)? = nil,
        commandHandler: CommandHandler? = nil, writeHandler: WriteHandler? = nil
    ) {
        var state = NodeState(model: model, attestation: attestation)
        state.commandHandler = commandHandler
        state.writeHandler = writeHandler
        self.state = Mutex(state)
        (changes, changed) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.logger = logger
        self.persist = persist
        self.advertisingChanged = advertisingChanged
    }

    deinit { changed.finish() }

    /// A `MatterApplication`: the reply to an Interaction Model request on a secure session.
    public func respond(to header: ProtocolHeader, payload: [UInt8], session: SessionContext) -> (opcode: UInt8, payload: [UInt8])? {
        guard header.protocolID == .interactionModel else { return nil }
        let exchange = NodeState.ExchangeKey(session: session.sessionID, exchange: header.exchangeID)
        var changed: Advertising?
        var toPersist: [UInt8]?
        defer {
            if let toPersist { persist?(toPersist) }
            if let changed { advertisingChanged?(changed) }
            if [InteractionOpcode.invokeRequest.rawValue, InteractionOpcode.writeRequest.rawValue].contains(header.opcode) {
                self.changed.yield()
            }
        }
        return state.withLock { state -> (opcode: UInt8, payload: [UInt8])? in
            let before = state.advertising
            let mutates =
                persist != nil
                && [InteractionOpcode.invokeRequest.rawValue, InteractionOpcode.writeRequest.rawValue].contains(header.opcode)
            let stored = mutates ? state.persistentState() : []
            defer {
                if state.advertising != before { changed = state.advertising }
                if mutates, case let now = state.persistentState(), now != stored { toPersist = now }
            }
            switch InteractionOpcode(rawValue: header.opcode) {
            case .readRequest:
                guard let request = try? InteractionModel.readRequest(payload) else {
                    return InteractionModel.statusResponse(.invalidAction)
                }
                return state.firstChunk(
                    InteractionModel.reportChunks(
                        state.read(request, session: session), events: state.readEvents(request.events, session: session),
                        suppressResponse: true),
                    exchange: exchange)
            case .timedRequest:
                guard let timeout = try? TLVDecoder.decode(payload).value.field(0, "Timeout", as: UInt16.self) else {
                    return InteractionModel.statusResponse(.invalidAction)
                }
                state.timedExchanges[exchange] = session.now + .milliseconds(Int(timeout))
                return InteractionModel.statusResponse(.success)
            case .invokeRequest:
                guard let request = try? InvokeMessage.request(payload) else { return InteractionModel.statusResponse(.invalidAction) }
                if let refusal = state.checkTimed(request.isTimed, exchange: exchange, now: session.now) { return refusal }
                let fabricsBefore = state.fabrics.map(\.index)
                let results = request.commands.map { command in
                    (
                        command.path, state.invoke(command.path, fields: command.fields, session: session, isTimed: request.isTimed),
                        command.ref
                    )
                }
                for (path, result, _) in results { logInvoke(path, result) }
                for fabric in state.fabrics where !fabricsBefore.contains(fabric.index) {
                    logger.info(
                        "fabric added",
                        metadata: [
                            "index": "\(fabric.index)", "fabric": "\(hexString(fabric.compressedFabricID))",
                            "node": "\(String(fabric.nodeID, radix: 16, uppercase: true))",
                        ])
                }
                return (InteractionOpcode.invokeResponse.rawValue, InvokeMessage.response(results))
            case .writeRequest:
                guard let request = try? WriteMessage.request(payload) else { return InteractionModel.statusResponse(.invalidAction) }
                if let refusal = state.checkTimed(request.isTimed, exchange: exchange, now: session.now) { return refusal }
                return (InteractionOpcode.writeResponse.rawValue, WriteMessage.response(state.write(request, session: session)))
            case .subscribeRequest:
                return state.subscribe(payload, session: session, exchange: exchange)
            case .statusResponse:
                if let next = state.nextChunk(exchange: exchange) { return next }
                return state.subscribeResponse(exchange: exchange, now: session.now)
            case nil:
                return nil
            default:
                return InteractionModel.statusResponse(.invalidAction)
            }
        }
    }

    /// Expires the fail-safe when its time is up (rolling back what it guarded).
    public func tick(now: ContinuousClock.Instant) {
        let (before, expired, after, stored) = state.withLock { state in
            let before = state.advertising
            let expired = state.expireFailSafe(now: now)
            return (before, expired, state.advertising, expired ? state.persistentState() : [])
        }
        if expired {
            logger.info("fail-safe expired: commissioning rolled back")
            persist?(stored)
        }
        if after != before { advertisingChanged?(after) }
    }

    /// Subscription reports due at `now`, each to go out on a new exchange of its session
    /// (subscriptions of sessions not in `liveSessions` end).
    public func dueReports(
        now: ContinuousClock.Instant, liveSessions: Set<UInt16>
    ) -> [(sessionID: UInt16, opcode: UInt8, payload: [UInt8])] {
        state.withLock { $0.dueReports(now: now, liveSessions: liveSessions) }.map {
            ($0.sessionID, InteractionOpcode.reportData.rawValue, $0.payload)
        }
    }

    /// Emits an event (StartUp, a switch's press, …): numbered, logged, reported to subscribers.
    public func emitEvent(endpoint: UInt16, cluster: UInt32, event: UInt32, priority: EventRecord.Priority, fields: [TLVElement]) {
        let systemTime = UInt64((ContinuousClock.now - started).components.seconds * 1000)
        let stored = state.withLock { state in
            state.emit(endpoint: endpoint, cluster: cluster, event: event, priority: priority, fields: fields, systemTime: systemTime)
            return state.persistentState()
        }
        persist?(stored)  // the next event number, so numbers keep growing across restarts
        changed.yield()
    }

    /// Changes an attribute from the application's side (a light switched by hand), bumping its data version.
    public func setAttribute(endpoint: UInt16, cluster: UInt32, attribute: UInt32, to value: TLVValue) {
        state.withLock { $0.model.set(endpoint: endpoint, cluster: cluster, attribute: attribute, to: value) }
        changed.yield()
    }

    /// Sets several attributes from the application's side as one change (a colour light's hue with
    /// its ColorMode), each bumping its cluster's data version: no report goes out between them.
    /// The global attribute lists are laid out again only when an attribute was not there before:
    /// `update` lays out every cluster's, which per batch of values took most of a core with 400
    /// bridged devices (docs/performance.md).
    public func setAttributes(_ changes: [(endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVValue)]) {
        guard !changes.isEmpty else { return }
        state.withLock { state in
            var added = false
            for change in changes {
                if !added, let cluster = state.model.endpoints[change.endpoint]?[change.cluster] {
                    added = cluster.attributes[change.attribute] == nil
                }
                state.model.set(endpoint: change.endpoint, cluster: change.cluster, attribute: change.attribute, to: change.value)
            }
            if added { state.addGlobalAttributes() }
        }
        changed.yield()
    }

    /// Changes the application's endpoints at once (a bridged device added or gone, several values
    /// that changed together): each attribute set with `DataModel.set` bumps its cluster's data
    /// version; the global attributes and each Descriptor's ServerList follow the clusters.
    public func update(_ change: (inout DataModel) -> Void) {
        state.withLock { state in
            change(&state.model)
            state.addGlobalAttributes()
        }
        changed.yield()
    }

    /// Restores what `persist` was last given (at start, before the node serves).
    public func restore(_ stored: [UInt8]) throws {
        try state.withLock { try $0.restore(stored) }
    }

    /// The verifier PASE answers with now (see `MessageDispatcher.commissioningVerifier`).
    public func commissioningVerifier(default setup: PASEVerifier) -> PASEVerifier? {
        state.withLock { $0.commissioningVerifier(default: setup) }
    }

    public var advertising: Advertising { state.withLock { $0.advertising } }

    /// The fabrics this node belongs to.
    public var fabrics: [Fabric] { state.withLock { $0.fabrics } }

    /// A copy of the data model as reads see it.
    public var model: DataModel { state.withLock { $0.model } }

    private func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }

    private func logInvoke(_ path: CommandPath, _ result: CommandResult) {
        let outcome: String
        switch result {
        case .response(let command, let fields):
            let status = fields.first { $0.tag == .context(0) }?.value.unsignedValue.map { " status \($0)" } ?? ""
            outcome = "response 0x\(String(command, radix: 16))\(status)"
        case .status(let status, _): outcome = "\(status)"
        }
        logger.info(
            "invoke",
            metadata: [
                "endpoint": "\(path.endpoint)", "cluster": "0x\(String(path.cluster, radix: 16))",
                "command": "0x\(String(path.command, radix: 16))", "result": "\(outcome)",
            ])
    }
}
