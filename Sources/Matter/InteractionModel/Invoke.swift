/// A command path (CommandPathIB, Matter specification 10.6.11): concrete, as invokes on a unicast session are.
public struct CommandPath: Sendable, Hashable {
    public var endpoint: UInt16
    public var cluster: UInt32
    public var command: UInt32

    public init(endpoint: UInt16, cluster: UInt32, command: UInt32) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.command = command
    }

    init(tlv: TLVValue) throws {
        guard case .list = tlv else { throw MatterError.unexpectedTLV("a CommandPathIB must be a list") }
        endpoint = try tlv.field(0, "Endpoint", as: UInt16.self)
        cluster = try tlv.field(1, "Cluster", as: UInt32.self)
        command = try tlv.field(2, "Command", as: UInt32.self)
    }

    var tlv: TLVValue {
        .list([
            TLVElement(.context(0), .unsigned(UInt64(endpoint))),
            TLVElement(.context(1), .unsigned(UInt64(cluster))),
            TLVElement(.context(2), .unsigned(UInt64(command))),
        ])
    }
}

/// What a command gives back: a response command with its fields, or a status (with a cluster-specific one).
public enum CommandResult: Sendable, Equatable {
    case response(command: UInt32, fields: [TLVElement])
    case status(InteractionStatus, cluster: UInt8? = nil)

    public static let success = CommandResult.status(.success)
}

/// The Invoke interaction's messages (Matter specification 10.7.9, 10.7.10).
enum InvokeMessage {
    struct Request {
        var isTimed: Bool
        var commands: [(path: CommandPath, fields: TLVValue, ref: UInt64?)]
    }

    /// InvokeRequestMessage {0: SuppressResponse, 1: TimedRequest, 2: [CommandDataIB {0: path, 1: fields, 2: ref}]}.
    static func request(_ bytes: [UInt8]) throws -> Request {
        let message = try TLVDecoder.decode(bytes).value
        guard case .structure = message, case .array(let requests)? = message[context: 2], !requests.isEmpty else {
            throw MatterError.unexpectedTLV("an InvokeRequestMessage needs InvokeRequests")
        }
        let commands = try requests.map { request -> (CommandPath, TLVValue, UInt64?) in
            guard let path = request.value[context: 0] else { throw MatterError.unexpectedTLV("a CommandDataIB without a path") }
            return (try CommandPath(tlv: path), request.value[context: 1] ?? .structure([]), request.value[context: 2]?.unsignedValue)
        }
        return Request(isTimed: message[context: 1]?.boolValue ?? false, commands: commands)
    }

    /// InvokeResponseMessage {0: SuppressResponse, 1: [InvokeResponseIB], 0xFF: revision}.
    static func response(_ results: [(path: CommandPath, result: CommandResult, ref: UInt64?)]) -> [UInt8] {
        let responses = results.map { path, result, ref -> TLVElement in
            let refField = ref.map { [TLVElement(.context(2), .unsigned($0))] } ?? []
            switch result {
            case .response(let command, let fields):
                let responsePath = CommandPath(endpoint: path.endpoint, cluster: path.cluster, command: command)
                return TLVElement(
                    .structure([
                        TLVElement(
                            .context(0),
                            .structure(
                                [
                                    TLVElement(.context(0), responsePath.tlv), TLVElement(.context(1), .structure(fields)),
                                ] + refField))
                    ]))
            case .status(let status, let clusterStatus):
                var statusFields = [TLVElement(.context(0), .unsigned(UInt64(status.rawValue)))]
                if let clusterStatus { statusFields.append(TLVElement(.context(1), .unsigned(UInt64(clusterStatus)))) }
                return TLVElement(
                    .structure([
                        TLVElement(
                            .context(1),
                            .structure(
                                [
                                    TLVElement(.context(0), path.tlv), TLVElement(.context(1), .structure(statusFields)),
                                ] + refField))
                    ]))
            }
        }
        return TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .bool(false)),
                TLVElement(.context(1), .array(responses)),
                TLVElement(.context(0xFF), .unsigned(InteractionModel.revision)),
            ]))
    }
}

/// The Write interaction's messages (Matter specification 10.7.6, 10.7.7).
enum WriteMessage {
    struct Request {
        var isTimed: Bool
        var writes: [(path: AttributePath, dataVersion: UInt32?, value: TLVValue)]
        var moreChunks: Bool
    }

    /// WriteRequestMessage {0: SuppressResponse, 1: TimedRequest, 2: [AttributeDataIB {0: DataVersion, 1: path, 2: data}], 3: MoreChunkedMessages}.
    static func request(_ bytes: [UInt8]) throws -> Request {
        let message = try TLVDecoder.decode(bytes).value
        guard case .structure = message, case .array(let requests)? = message[context: 2] else {
            throw MatterError.unexpectedTLV("a WriteRequestMessage needs WriteRequests")
        }
        let writes = try requests.map { request -> (AttributePath, UInt32?, TLVValue) in
            guard let path = request.value[context: 1], let data = request.value[context: 2] else {
                throw MatterError.unexpectedTLV("an AttributeDataIB needs a path and data")
            }
            let version = request.value[context: 0] == nil ? nil : try request.value.field(0, "DataVersion", as: UInt32.self)
            return (try AttributePath(tlv: path), version, data)
        }
        return Request(
            isTimed: message[context: 1]?.boolValue ?? false, writes: writes, moreChunks: message[context: 3]?.boolValue ?? false)
    }

    /// WriteResponseMessage {0: [AttributeStatusIB {0: path, 1: StatusIB}], 0xFF: revision}.
    static func response(_ statuses: [(AttributePath, InteractionStatus)]) -> [UInt8] {
        TLVEncoder.encode(
            .structure([
                TLVElement(
                    .context(0),
                    .array(
                        statuses.map { path, status in
                            TLVElement(
                                .structure([
                                    TLVElement(.context(0), path.tlv),
                                    TLVElement(.context(1), .structure([TLVElement(.context(0), .unsigned(UInt64(status.rawValue)))])),
                                ]))
                        })),
                TLVElement(.context(0xFF), .unsigned(InteractionModel.revision)),
            ]))
    }
}
