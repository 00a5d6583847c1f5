/// The Interaction Model's server side, as far as it goes: Read (ReadRequest → ReportData in one
/// message; a larger report is refused with RESOURCE_EXHAUSTED until chunking exists) over a secure
/// session; every other action is answered with a StatusResponse of INVALID_ACTION.
public struct InteractionModel: Sendable {
    /// Matter 1.4's revision, sent in every message.
    static let revision: UInt64 = 12
    /// The most a report may take until chunking exists: an IPv6 minimum MTU of 1280 bytes less
    /// the IP and UDP headers (48), the message and protocol headers (up to 34) and the tag (16).
    static let maximumReportLength = 1280 - 48 - 34 - 16
    public let model: DataModel

    public init(model: DataModel) {
        self.model = model
    }

    /// The reply to one request (a `MatterApplication`).
    public func respond(to header: ProtocolHeader, payload: [UInt8]) -> (opcode: UInt8, payload: [UInt8])? {
        guard header.protocolID == .interactionModel else { return nil }
        switch InteractionOpcode(rawValue: header.opcode) {
        case .readRequest:
            guard let request = try? TLVDecoder.decode(payload).value else { return statusResponse(.invalidAction) }
            return read(request)
        case .statusResponse, nil:
            return nil
        default:
            return statusResponse(.invalidAction)
        }
    }

    /// ReadRequestMessage {0: AttributeRequests, 1: EventRequests, 3: FabricFiltered, …} → ReportDataMessage
    /// {1: AttributeReports, 4: SuppressResponse}, in one message.
    func read(_ request: TLVValue) -> (opcode: UInt8, payload: [UInt8]) {
        guard case .structure = request else { return statusResponse(.invalidAction) }
        let paths: [AttributePath]
        do {
            paths = try (request[context: 0]?.members ?? []).map { try AttributePath(tlv: $0.value) }
        } catch {
            return statusResponse(.invalidAction)
        }
        let reports = paths.flatMap(model.read).map(Self.reportIB)
        let message = TLVValue.structure([
            TLVElement(.context(1), .array(reports.map { TLVElement($0) })),
            TLVElement(.context(4), .bool(true)),
            TLVElement(.context(0xFF), .unsigned(Self.revision)),
        ])
        let payload = TLVEncoder.encode(message)
        guard payload.count <= Self.maximumReportLength else { return statusResponse(.resourceExhausted) }  // no chunking yet
        return (InteractionOpcode.reportData.rawValue, payload)
    }

    /// AttributeReportIB: {0: AttributeStatusIB {0: path, 1: StatusIB {0: status}}} or
    /// {1: AttributeDataIB {0: DataVersion, 1: path, 2: data}}.
    static func reportIB(_ report: DataModel.Report) -> TLVValue {
        switch report {
        case .data(let path, let version, let value):
            return .structure([
                TLVElement(.context(1), .structure([
                    TLVElement(.context(0), .unsigned(UInt64(version))),
                    TLVElement(.context(1), path.tlv),
                    TLVElement(.context(2), value),
                ]))
            ])
        case .status(let path, let status):
            return .structure([
                TLVElement(.context(0), .structure([
                    TLVElement(.context(0), path.tlv),
                    TLVElement(.context(1), .structure([TLVElement(.context(0), .unsigned(UInt64(status.rawValue)))])),
                ]))
            ])
        }
    }

    func statusResponse(_ status: InteractionStatus) -> (opcode: UInt8, payload: [UInt8]) {
        let message = TLVValue.structure([
            TLVElement(.context(0), .unsigned(UInt64(status.rawValue))),
            TLVElement(.context(0xFF), .unsigned(Self.revision)),
        ])
        return (InteractionOpcode.statusResponse.rawValue, TLVEncoder.encode(message))
    }
}
