/// Subscriptions (Matter specification 8.5): the priming report and SubscribeResponse on the
/// request's exchange, then a report on a new exchange when a subscribed cluster's data version
/// changes (no sooner than the floor) or an empty one at the maximum interval as a keep-alive.
extension NodeState {
    struct Subscription: Sendable {
        struct ClusterKey: Hashable, Sendable {
            var endpoint: UInt16
            var cluster: UInt32
        }

        var id: UInt32
        var sessionID: UInt16
        var subject: Subject
        var paths: [AttributePath]
        var isFabricFiltered: Bool
        var minInterval: Duration
        var maxInterval: Duration
        var lastReport: ContinuousClock.Instant
        var versions: [ClusterKey: UInt32]
        var isPrimed = false
        var events: EventRequest?
        /// The number of the last event reported (0: none yet).
        var lastEvent: UInt64 = 0
    }

    /// A report to send on a new exchange of `sessionID`.
    struct Report: Sendable {
        var sessionID: UInt16
        var payload: [UInt8]
    }

    /// SubscribeRequestMessage {0: KeepSubscriptions, 1: MinIntervalFloor, 2: MaxIntervalCeiling, 3: AttributeRequests, 7: IsFabricFiltered}:
    /// the priming ReportData; the SubscribeResponse follows the controller's StatusResponse.
    mutating func subscribe(_ bytes: [UInt8], session: SessionContext, exchange: ExchangeKey) -> (opcode: UInt8, payload: [UInt8]) {
        guard let request = try? TLVDecoder.decode(bytes).value, case .structure = request,
            let floor = try? request.field(1, "MinIntervalFloorSeconds", as: UInt16.self),
            let ceiling = try? request.field(2, "MaxIntervalCeilingSeconds", as: UInt16.self),
            let paths = try? (request[context: 3]?.members ?? []).map({ try AttributePath(tlv: $0.value) })
        else { return InteractionModel.statusResponse(.invalidAction) }
        if request[context: 0]?.boolValue != true {
            subscriptions = subscriptions.filter { $0.value.subject != session.subject }
        }
        guard subscriptions.count < Self.subscriptionLimit else { return InteractionModel.statusResponse(.resourceExhausted) }
        var id: UInt32
        repeat { id = UInt32.random(in: 1...UInt32.max) } while subscriptions[id] != nil
        let isFabricFiltered = request[context: 7]?.boolValue ?? true
        let reports = read(.init(paths: paths, isFabricFiltered: isFabricFiltered), session: session)
        let eventRequest = try? EventRequest(paths: request[context: 4], filters: request[context: 5])
        let eventReports = readEvents(eventRequest, session: session)
        var subscription = Subscription(
            id: id, sessionID: session.sessionID, subject: session.subject, paths: paths, isFabricFiltered: isFabricFiltered,
            minInterval: .seconds(Int(floor)), maxInterval: .seconds(Int(max(floor, ceiling, 1))), lastReport: session.now, versions: [:])
        subscription.versions = versions(for: paths)
        subscription.events = eventRequest
        subscription.lastEvent = nextEventNumber - 1
        guard let chunks = InteractionModel.reportChunks(reports, events: eventReports, subscriptionID: id, suppressResponse: false) else {
            return InteractionModel.statusResponse(.resourceExhausted)
        }
        subscriptions[id] = subscription
        pendingSubscribeResponses[exchange] = id
        return firstChunk(chunks, exchange: exchange)
    }

    /// The controller's StatusResponse to a priming report: the SubscribeResponse that completes it.
    mutating func subscribeResponse(exchange: ExchangeKey, now: ContinuousClock.Instant) -> (opcode: UInt8, payload: [UInt8])? {
        guard let id = pendingSubscribeResponses.removeValue(forKey: exchange), var subscription = subscriptions[id] else { return nil }
        subscription.isPrimed = true
        subscription.lastReport = now
        subscriptions[id] = subscription
        let seconds = subscription.maxInterval.components.seconds
        return (
            InteractionOpcode.subscribeResponse.rawValue,
            TLVEncoder.encode(
                .structure([
                    TLVElement(.context(0), .unsigned(UInt64(id))), TLVElement(.context(2), .unsigned(UInt64(seconds))),
                    TLVElement(.context(0xFF), .unsigned(InteractionModel.revision)),
                ]))
        )
    }

    /// The reports due at `now`; subscriptions of sessions no longer in `liveSessions` end.
    mutating func dueReports(now: ContinuousClock.Instant, liveSessions: Set<UInt16>) -> [Report] {
        subscriptions = subscriptions.filter { liveSessions.contains($0.value.sessionID) }
        if !pendingSubscribeResponses.isEmpty {
            pendingSubscribeResponses = pendingSubscribeResponses.filter { subscriptions[$0.value] != nil }
        }
        var due: [Report] = []
        for (id, var subscription) in subscriptions where subscription.isPrimed && now - subscription.lastReport >= subscription.minInterval
        {
            let current = versions(for: subscription.paths)
            let changed = Set(current.filter { subscription.versions[$0.key] != $0.value }.keys)
            let session = SessionContext(
                sessionID: subscription.sessionID, subject: subscription.subject, attestationChallenge: [], now: now)
            let newEvents = readEvents(subscription.events, session: session, after: subscription.lastEvent)
            guard !changed.isEmpty || !newEvents.isEmpty || now - subscription.lastReport >= subscription.maxInterval else { continue }
            let reports = read(.init(paths: subscription.paths, isFabricFiltered: subscription.isFabricFiltered), session: session).filter {
                guard case .data(let path, _, _) = $0, let endpoint = path.endpoint, let cluster = path.cluster else { return false }
                return changed.contains(.init(endpoint: endpoint, cluster: cluster))
            }
            subscription.versions = current
            subscription.lastReport = now
            subscription.lastEvent = nextEventNumber - 1
            subscriptions[id] = subscription
            due.append(Report(sessionID: subscription.sessionID, payload: reportMessage(subscriptionID: id, reports, events: newEvents)))
        }
        return due
    }

    /// The first of a report's chunks, the rest kept for the controller's StatusResponses on `exchange`.
    mutating func firstChunk(_ chunks: [[UInt8]]?, exchange: ExchangeKey) -> (opcode: UInt8, payload: [UInt8]) {
        guard let chunks, let first = chunks.first else { return InteractionModel.statusResponse(.resourceExhausted) }
        if chunks.count > 1 { pendingChunks[exchange] = Array(chunks.dropFirst()) }
        if pendingChunks.count > Self.subscriptionLimit * 2 { pendingChunks = [exchange: pendingChunks[exchange] ?? []] }
        return (InteractionOpcode.reportData.rawValue, first)
    }

    /// The next chunk of a report on `exchange`, if one is waiting.
    mutating func nextChunk(exchange: ExchangeKey) -> (opcode: UInt8, payload: [UInt8])? {
        guard var rest = pendingChunks[exchange], !rest.isEmpty else { return nil }
        let next = rest.removeFirst()
        pendingChunks[exchange] = rest.isEmpty ? nil : rest
        return (InteractionOpcode.reportData.rawValue, next)
    }

    /// The data version of every cluster the paths reach.
    func versions(for paths: [AttributePath]) -> [Subscription.ClusterKey: UInt32] {
        var versions: [Subscription.ClusterKey: UInt32] = [:]
        for path in paths {
            for (endpoint, clusters) in model.endpoints where path.endpoint == nil || path.endpoint == endpoint {
                for (clusterID, cluster) in clusters where path.cluster == nil || path.cluster == clusterID {
                    versions[.init(endpoint: endpoint, cluster: clusterID)] = cluster.dataVersion
                }
            }
        }
        return versions
    }

    /// ReportDataMessage {0: SubscriptionId, 1: AttributeReports}: a subscription's report wants a StatusResponse.
    func reportMessage(subscriptionID: UInt32, _ reports: [DataModel.Report], events: [EventRecord] = []) -> [UInt8] {
        var fields = [TLVElement(.context(0), .unsigned(UInt64(subscriptionID)))]
        if !reports.isEmpty { fields.append(TLVElement(.context(1), .array(reports.map { TLVElement(InteractionModel.reportIB($0)) }))) }
        if !events.isEmpty { fields.append(TLVElement(.context(2), .array(events.map { TLVElement($0.reportIB) }))) }
        fields.append(TLVElement(.context(0xFF), .unsigned(InteractionModel.revision)))
        return TLVEncoder.encode(.structure(fields))
    }
}
