import Crypto

/// Cluster ids the node serves itself on endpoint 0 (Matter Application Cluster specification).
enum ClusterID {
    static let descriptor: UInt32 = 0x001D
    static let accessControl: UInt32 = 0x001F
    static let basicInformation: UInt32 = 0x0028
    static let generalCommissioning: UInt32 = 0x0030
    static let networkCommissioning: UInt32 = 0x0031
    static let operationalCredentials: UInt32 = 0x003E
    static let groupKeyManagement: UInt32 = 0x003F
    static let onOff: UInt32 = 0x0006
    static let levelControl: UInt32 = 0x0008
    static let colorControl: UInt32 = 0x0300
    static let identify: UInt32 = 0x0003
    static let windowCovering: UInt32 = 0x0102
    static let thermostat: UInt32 = 0x0201
    static let administratorCommissioning: UInt32 = 0x003C
    static let doorLock: UInt32 = 0x0101
    static let fanControl: UInt32 = 0x0202

    /// Commands the specification marks as needing a Timed Invoke (a lock's LockDoor, UnlockDoor and
    /// UnlockWithTimeout; Administrator Commissioning's OpenCommissioningWindow,
    /// OpenBasicCommissioningWindow and RevokeCommissioning): refused with NEEDS_TIMED_INTERACTION
    /// when sent without one.
    static let timedCommands: [UInt32: Set<UInt32>] = [doorLock: [0x00, 0x01, 0x03], administratorCommissioning: [0x00, 0x01, 0x02]]

    /// The clusters the node answers itself; an application's `CommandHandler` answers the others.
    static let served: Set<UInt32> = [generalCommissioning, operationalCredentials, administratorCommissioning, groupKeyManagement]

    /// The clusters whose commands need Administer; others' need Operate.
    static let administered: Set<UInt32> = [
        accessControl, generalCommissioning, networkCommissioning, operationalCredentials, groupKeyManagement,
    ]
}

/// Everything the node knows and changes: the data model, fabrics, access control and the
/// commissioning in progress (fail-safe, the pending root and operational key).
struct NodeState: Sendable {
    struct ExchangeKey: Hashable, Sendable {
        var session: UInt16
        var exchange: UInt16
    }

    /// The fail-safe context (Matter specification 11.10.7.2): what to undo when it expires.
    struct FailSafe: Sendable {
        var deadline: ContinuousClock.Instant
        /// The fabric that armed it (0: a PASE session before AddNOC).
        var fabricIndex: UInt8
        var addedFabric: UInt8?
        var replacedFabric: Fabric?
    }

    static let supportedFabrics = 5
    static let entriesPerFabric = 4
    static let subjectsPerEntry = 4
    static let targetsPerEntry = 3

    var model: DataModel
    let attestation: DeviceAttestation?
    /// Answers invokes of application clusters (a bridge passes them on); without one, the node
    /// switches its own On/Off clusters.
    var commandHandler: MatterNode.CommandHandler?
    /// Answers writes of application attributes the node does not keep itself.
    var writeHandler: MatterNode.WriteHandler?
    var fabrics: [Fabric] = []
    var acl: [AccessControlEntry] = []
    var failSafe: FailSafe?
    var pendingRoot: [UInt8]?
    var pendingKey: (key: P256.Signing.PrivateKey, forUpdate: Bool)?
    var breadcrumb: UInt64 = 0
    var regulatoryConfig: UInt64 = 2  // IndoorOutdoor
    var timedExchanges: [ExchangeKey: ContinuousClock.Instant] = [:]
    var window: CommissioningWindow?
    var subscriptions: [UInt32: Subscription] = [:]
    var pendingSubscribeResponses: [ExchangeKey: UInt32] = [:]
    var pendingChunks: [ExchangeKey: [[UInt8]]] = [:]
    /// The event log, oldest first, and the next event number (kept across restarts, so numbers only grow).
    var events: [EventRecord] = []
    var nextEventNumber: UInt64 = 1
    static let eventLogLimit = 64
    static let subscriptionLimit = 32

    init(model: DataModel, attestation: DeviceAttestation?) {
        self.model = model
        self.attestation = attestation
        for (cluster, attributes) in Self.commissioningClusters() {
            self.model.endpoints[0, default: [:]][cluster] = DataModel.Cluster(attributes: attributes)
        }
        refresh()
        addGlobalAttributes()
    }

    /// The fabric a session acts for: its CASE fabric, or for PASE the fabric it added (11.18.6.8).
    func accessingFabric(_ session: SessionContext) -> UInt8 {
        switch session.subject {
        case .caseSession(let fabricIndex, _, _): fabricIndex
        case .pase: failSafe?.addedFabric ?? 0
        }
    }

    func allows(_ session: SessionContext, _ privilege: AccessControlEntry.Privilege, endpoint: UInt16, cluster: UInt32) -> Bool {
        AccessControl.allows(session.subject, privilege, endpoint: endpoint, cluster: cluster, entries: acl)
    }

    // MARK: Events

    /// Appends an event to the log with the next number; the oldest goes when the log is full.
    mutating func emit(
        endpoint: UInt16, cluster: UInt32, event: UInt32, priority: EventRecord.Priority, fields: [TLVElement], systemTime: UInt64
    ) {
        events.append(
            EventRecord(
                number: nextEventNumber, endpoint: endpoint, cluster: cluster, event: event, priority: priority, systemTime: systemTime,
                fields: fields))
        nextEventNumber += 1
        if events.count > Self.eventLogLimit { events.removeFirst(events.count - Self.eventLogLimit) }
    }

    /// The events `request` asks for that `session` may read (View on the event's cluster), after `number`.
    func readEvents(_ request: EventRequest?, session: SessionContext, after number: UInt64? = nil) -> [EventRecord] {
        (request?.select(events, after: number) ?? []).filter { allows(session, .view, endpoint: $0.endpoint, cluster: $0.cluster) }
    }

    // MARK: Read

    func read(_ request: InteractionModel.ReadRequest, session: SessionContext) -> [DataModel.Report] {
        let view = self.view(for: session, isFabricFiltered: request.isFabricFiltered)
        return request.paths.flatMap { path in
            let isConcrete = path.endpoint != nil && path.cluster != nil && path.attribute != nil
            return view.read(path).compactMap { report -> DataModel.Report? in
                guard case .data(let concrete, _, _) = report, let endpoint = concrete.endpoint, let cluster = concrete.cluster else {
                    return report
                }
                let needed: AccessControlEntry.Privilege = cluster == ClusterID.accessControl ? .administer : .view
                if allows(session, needed, endpoint: endpoint, cluster: cluster) { return report }
                return isConcrete ? .status(concrete, .unsupportedAccess) : nil
            }
        }
    }

    /// The model as `session` reads it: its CurrentFabricIndex, and fabric-scoped lists filtered to its fabric.
    func view(for session: SessionContext, isFabricFiltered: Bool) -> DataModel {
        var view = model
        let fabric = accessingFabric(session)
        view.endpoints[0]?[ClusterID.operationalCredentials]?.attributes[5] = .unsigned(UInt64(fabric))
        guard isFabricFiltered else { return view }
        for (cluster, attribute) in [
            (ClusterID.operationalCredentials, UInt32(0)), (ClusterID.operationalCredentials, 1), (ClusterID.accessControl, 0),
        ] {
            if case .array(let entries)? = view.endpoints[0]?[cluster]?.attributes[attribute] {
                view.endpoints[0]?[cluster]?.attributes[attribute] = .array(
                    entries.filter { $0.value[context: 0xFE]?.unsignedValue == UInt64(fabric) })
            }
        }
        return view
    }

    // MARK: Write

    mutating func write(_ request: WriteMessage.Request, session: SessionContext) -> [(AttributePath, InteractionStatus)] {
        // Access is judged against the ACL as the request found it: a controller replacing the ACL
        // (an empty list, then its entries appended) keeps its right to finish.
        let entries = acl
        let statuses = request.writes.map { path, dataVersion, value in
            (path, write(path, dataVersion: dataVersion, value: value, session: session, entries: entries))
        }
        refresh()
        return statuses
    }

    private mutating func write(
        _ path: AttributePath, dataVersion: UInt32?, value: TLVValue, session: SessionContext, entries: [AccessControlEntry]
    ) -> InteractionStatus {
        guard let endpoint = path.endpoint, let clusterID = path.cluster, let attribute = path.attribute else { return .invalidAction }
        guard let clusters = model.endpoints[endpoint] else { return .unsupportedEndpoint }
        guard let cluster = clusters[clusterID] else { return .unsupportedCluster }
        guard cluster.attributes[attribute] != nil else { return .unsupportedAttribute }
        let needed: AccessControlEntry.Privilege = clusterID == ClusterID.accessControl ? .administer : .manage
        guard AccessControl.allows(session.subject, needed, endpoint: endpoint, cluster: clusterID, entries: entries) else {
            return .unsupportedAccess
        }
        if let dataVersion, dataVersion != cluster.dataVersion { return .dataVersionMismatch }
        switch (endpoint, clusterID, attribute) {
        case (0, ClusterID.basicInformation, 5):  // NodeLabel
            guard case .utf8(let label) = value, label.utf8.count <= 32 else { return .constraintError }
            model.set(endpoint: 0, cluster: clusterID, attribute: attribute, to: value)
            return .success
        case (0, ClusterID.basicInformation, 6):  // Location
            guard case .utf8(let location) = value, location.utf8.count == 2 else { return .constraintError }
            model.set(endpoint: 0, cluster: clusterID, attribute: attribute, to: value)
            return .success
        case (0, ClusterID.accessControl, 0):
            return writeACL(value, appending: path.appendsToList, fabricIndex: accessingFabric(session))
        case _ where endpoint != 0 && writeHandler != nil:
            return writeHandler?(path, value) ?? .unsupportedWrite
        default:
            return .unsupportedWrite
        }
    }

    /// Replaces the fabric's entries with a list, or appends one entry (ListIndex null).
    private mutating func writeACL(_ value: TLVValue, appending: Bool, fabricIndex: UInt8) -> InteractionStatus {
        guard fabricIndex != 0 else { return .unsupportedAccess }
        let items: [TLVValue]
        switch (appending, value) {
        case (true, .structure): items = [value]
        case (false, .array(let members)): items = members.map(\.value)
        default: return .constraintError
        }
        guard let entries = try? items.map({ try AccessControlEntry(tlv: $0, fabricIndex: fabricIndex) }) else { return .constraintError }
        guard entries.allSatisfy({ ($0.subjects?.count ?? 0) <= Self.subjectsPerEntry && ($0.targets?.count ?? 0) <= Self.targetsPerEntry })
        else {
            return .resourceExhausted
        }
        var kept = acl.filter { $0.fabricIndex != fabricIndex }
        let ours = (appending ? acl.filter { $0.fabricIndex == fabricIndex } : []) + entries
        guard ours.count <= Self.entriesPerFabric else { return .resourceExhausted }
        kept += ours
        acl = kept
        return .success
    }

    /// Refuses a request whose TimedRequest flag does not match a live Timed interaction on its exchange.
    mutating func checkTimed(_ isTimed: Bool, exchange: ExchangeKey, now: ContinuousClock.Instant) -> (opcode: UInt8, payload: [UInt8])? {
        let deadline = timedExchanges.removeValue(forKey: exchange)
        timedExchanges = timedExchanges.filter { $0.value > now }
        switch (isTimed, deadline) {
        case (false, nil): return nil
        case (true, let deadline?): return deadline >= now ? nil : InteractionModel.statusResponse(.timeout)
        default: return InteractionModel.statusResponse(.timedRequestMismatch)
        }
    }
}

extension DataModel {
    /// Sets an attribute, bumping its cluster's data version when the value changes.
    public mutating func set(endpoint: UInt16, cluster: UInt32, attribute: UInt32, to value: TLVValue) {
        guard var found = endpoints[endpoint]?[cluster], found.attributes[attribute] != value else { return }
        found.attributes[attribute] = value
        found.dataVersion &+= 1
        endpoints[endpoint]?[cluster] = found
    }
}
