/// The Interaction Model's message shapes shared by every action (Matter specification 10):
/// ReadRequest → ReportData in one message (a larger report is refused with RESOURCE_EXHAUSTED
/// until chunking exists), StatusResponse, and the revision every message carries.
enum InteractionModel {
    /// Matter 1.4's revision, sent in every message.
    static let revision: UInt64 = 12
    /// The most a report may take until chunking exists: an IPv6 minimum MTU of 1280 bytes less
    /// the IP and UDP headers (48), the message and protocol headers (up to 34) and the tag (16).
    static let maximumReportLength = 1280 - 48 - 34 - 16

    struct ReadRequest {
        var paths: [AttributePath]
        var isFabricFiltered: Bool
        var events: EventRequest? = nil
    }

    /// ReadRequestMessage {0: AttributeRequests, 1: EventRequests, 3: FabricFiltered, …}.
    static func readRequest(_ bytes: [UInt8]) throws -> ReadRequest {
        let request = try TLVDecoder.decode(bytes).value
        guard case .structure = request else { throw MatterError.unexpectedTLV("a ReadRequestMessage must be a structure") }
        let paths = try (request[context: 0]?.members ?? []).map { try AttributePath(tlv: $0.value) }
        let events = try EventRequest(paths: request[context: 1], filters: request[context: 2])
        return ReadRequest(paths: paths, isFabricFiltered: request[context: 3]?.boolValue ?? true, events: events)
    }

    /// ReportDataMessages carrying `reports` (Matter specification 10.7.3, 10.6.6): one, or several
    /// when they do not fit one message, each but the last with MoreChunkedMessages (the controller
    /// asks for the next with a StatusResponse). The last of a read has SuppressResponse. Nil when a
    /// single attribute is too large for a message (lists are not split into their items yet).
    static func reportChunks(
        _ reports: [DataModel.Report], events: [EventRecord] = [], subscriptionID: UInt32? = nil, suppressResponse: Bool
    ) -> [[UInt8]]? {
        // Attribute reports first, then event reports (AttributeReports is tag 1, EventReports tag 2).
        let items =
            reports.map { (1, TLVEncoder.encode(TLVElement(reportIB($0)))) }
            + events.map { (2, TLVEncoder.encode(TLVElement($0.reportIB))) }
        let overhead = 36  // the structure, SubscriptionId, two arrays' heads and ends, the flags and the revision
        var chunks: [[(Int, [UInt8])]] = [[]]
        var size = 0
        for item in items {
            guard item.1.count + overhead <= maximumReportLength else { return nil }
            if size + item.1.count + overhead > maximumReportLength {
                chunks.append([])
                size = 0
            }
            chunks[chunks.count - 1].append(item)
            size += item.1.count
        }
        return chunks.enumerated().map { index, items in
            let isLast = index == chunks.count - 1
            var out: [UInt8] = [0x15]  // anonymous structure
            if let subscriptionID { out += TLVEncoder.encode(TLVElement(.context(0), .unsigned(UInt64(subscriptionID)))) }
            let attributes = items.filter { $0.0 == 1 }.map(\.1)
            if !attributes.isEmpty || (subscriptionID == nil && items.allSatisfy { $0.0 == 1 }) {
                out += [0x36, 0x01]  // context 1: an array
                for item in attributes { out += item }
                out += [0x18]
            }
            let eventItems = items.filter { $0.0 == 2 }.map(\.1)
            if !eventItems.isEmpty {
                out += [0x36, 0x02]  // context 2: an array
                for item in eventItems { out += item }
                out += [0x18]
            }
            if !isLast { out += TLVEncoder.encode(TLVElement(.context(3), .bool(true))) }
            if isLast && suppressResponse { out += TLVEncoder.encode(TLVElement(.context(4), .bool(true))) }
            out += TLVEncoder.encode(TLVElement(.context(0xFF), .unsigned(revision)))
            return out + [0x18]
        }
    }

    /// AttributeReportIB: {0: AttributeStatusIB {0: path, 1: StatusIB {0: status}}} or
    /// {1: AttributeDataIB {0: DataVersion, 1: path, 2: data}}.
    static func reportIB(_ report: DataModel.Report) -> TLVValue {
        switch report {
        case .data(let path, let version, let value):
            return .structure([
                TLVElement(
                    .context(1),
                    .structure([
                        TLVElement(.context(0), .unsigned(UInt64(version))),
                        TLVElement(.context(1), path.tlv),
                        TLVElement(.context(2), value),
                    ]))
            ])
        case .status(let path, let status):
            return .structure([
                TLVElement(
                    .context(0),
                    .structure([
                        TLVElement(.context(0), path.tlv),
                        TLVElement(.context(1), .structure([TLVElement(.context(0), .unsigned(UInt64(status.rawValue)))])),
                    ]))
            ])
        }
    }

    static func statusResponse(_ status: InteractionStatus) -> (opcode: UInt8, payload: [UInt8]) {
        let message = TLVValue.structure([
            TLVElement(.context(0), .unsigned(UInt64(status.rawValue))),
            TLVElement(.context(0xFF), .unsigned(revision)),
        ])
        return (InteractionOpcode.statusResponse.rawValue, TLVEncoder.encode(message))
    }
}
