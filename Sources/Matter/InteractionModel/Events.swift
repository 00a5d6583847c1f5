/// An event path (EventPathIB, Matter specification 10.6.8): a missing endpoint, cluster or event is a wildcard.
public struct EventPath: Sendable, Hashable {
    public var endpoint: UInt16?
    public var cluster: UInt32?
    public var event: UInt32?

    public init(endpoint: UInt16?, cluster: UInt32?, event: UInt32?) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.event = event
    }

    init(tlv: TLVValue) throws {
        guard case .list = tlv else { throw MatterError.unexpectedTLV("an EventPathIB must be a list") }
        endpoint = tlv[context: 1] == nil ? nil : try tlv.field(1, "Endpoint", as: UInt16.self)
        cluster = tlv[context: 2] == nil ? nil : try tlv.field(2, "Cluster", as: UInt32.self)
        event = tlv[context: 3] == nil ? nil : try tlv.field(3, "Event", as: UInt32.self)
    }

    func matches(_ record: EventRecord) -> Bool {
        (endpoint ?? record.endpoint) == record.endpoint && (cluster ?? record.cluster) == record.cluster
            && (event ?? record.event) == record.event
    }
}

/// An event the node emitted (Matter specification 7.14): numbered in order, kept in a bounded log.
public struct EventRecord: Sendable, Equatable {
    public enum Priority: UInt8, Sendable {
        case debug = 0
        case info = 1
        case critical = 2
    }

    public var number: UInt64
    public var endpoint: UInt16
    public var cluster: UInt32
    public var event: UInt32
    public var priority: Priority
    /// Milliseconds since the node started.
    public var systemTime: UInt64
    public var fields: [TLVElement]

    /// EventReportIB {1: EventDataIB {0: path, 1: number, 2: priority, 4: system timestamp, 7: data}}.
    var reportIB: TLVValue {
        .structure([
            TLVElement(
                .context(1),
                .structure([
                    TLVElement(
                        .context(0),
                        .list([
                            TLVElement(.context(1), .unsigned(UInt64(endpoint))), TLVElement(.context(2), .unsigned(UInt64(cluster))),
                            TLVElement(.context(3), .unsigned(UInt64(event))),
                        ])),
                    TLVElement(.context(1), .unsigned(number)),
                    TLVElement(.context(2), .unsigned(UInt64(priority.rawValue))),
                    TLVElement(.context(4), .unsigned(systemTime)),
                    TLVElement(.context(7), .structure(fields)),
                ]))
        ])
    }
}

/// What a request asks of the event log: paths, and the lowest event number wanted (EventFilters).
struct EventRequest: Sendable {
    var paths: [EventPath]
    var minimum: UInt64

    /// From a ReadRequest's or SubscribeRequest's EventRequests and EventFilters ({1: EventMin}).
    init(paths: TLVValue?, filters: TLVValue?) throws {
        self.paths = try (paths?.members ?? []).map { try EventPath(tlv: $0.value) }
        minimum = filters?.members?.compactMap { $0.value[context: 1]?.unsignedValue }.max() ?? 0
    }

    func select(_ log: [EventRecord], after number: UInt64? = nil) -> [EventRecord] {
        guard !paths.isEmpty else { return [] }
        return log.filter { record in
            record.number >= minimum && (number.map { record.number > $0 } ?? true) && paths.contains { $0.matches(record) }
        }
    }
}
