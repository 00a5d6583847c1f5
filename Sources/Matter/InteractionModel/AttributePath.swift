/// An attribute path (Matter specification 10.6.2, AttributePathIB): a missing endpoint, cluster
/// or attribute is a wildcard.
public struct AttributePath: Sendable, Hashable {
    public var endpoint: UInt16?
    public var cluster: UInt32?
    public var attribute: UInt32?

    public init(endpoint: UInt16?, cluster: UInt32?, attribute: UInt32?) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
    }

    /// Set for a write that appends one item to a list (ListIndex null).
    public var appendsToList = false

    init(tlv: TLVValue) throws {
        guard case .list = tlv else { throw MatterError.unexpectedTLV("an AttributePathIB must be a list") }
        switch tlv[context: 5] {
        case nil: break
        case .null?: appendsToList = true
        default: throw MatterError.unexpectedTLV("list indexes other than null (append) are not supported")
        }
        endpoint = tlv[context: 2] == nil ? nil : try tlv.field(2, "Endpoint", as: UInt16.self)
        cluster = tlv[context: 3] == nil ? nil : try tlv.field(3, "Cluster", as: UInt32.self)
        attribute = tlv[context: 4] == nil ? nil : try tlv.field(4, "Attribute", as: UInt32.self)
    }

    var tlv: TLVValue {
        var fields: [TLVElement] = []
        if let endpoint { fields.append(TLVElement(.context(2), .unsigned(UInt64(endpoint)))) }
        if let cluster { fields.append(TLVElement(.context(3), .unsigned(UInt64(cluster)))) }
        if let attribute { fields.append(TLVElement(.context(4), .unsigned(UInt64(attribute)))) }
        if appendsToList { fields.append(TLVElement(.context(5), .null)) }
        return .list(fields)
    }
}

/// Interaction Model status codes (Matter specification 8.10.1) that this stack sends.
public enum InteractionStatus: UInt8, Sendable {
    case success = 0x00
    case failure = 0x01
    case invalidAction = 0x80
    case unsupportedCommand = 0x81
    case unsupportedAccess = 0x7E
    case unsupportedEndpoint = 0x7F
    case invalidCommand = 0x85
    case unsupportedAttribute = 0x86
    case constraintError = 0x87
    case unsupportedWrite = 0x88
    case resourceExhausted = 0x89
    case notFound = 0x8B
    case dataVersionMismatch = 0x92
    case timeout = 0x94
    case busy = 0x9C
    case unsupportedCluster = 0xC3
    case needsTimedInteraction = 0xC6
    case timedRequestMismatch = 0xC9
    case failsafeRequired = 0xCA
    case invalidInState = 0xCB
}

/// The Interaction Model's opcodes (Matter specification 10.2.1).
public enum InteractionOpcode: UInt8, Sendable {
    case statusResponse = 0x01
    case readRequest = 0x02
    case subscribeRequest = 0x03
    case subscribeResponse = 0x04
    case reportData = 0x05
    case writeRequest = 0x06
    case writeResponse = 0x07
    case invokeRequest = 0x08
    case invokeResponse = 0x09
    case timedRequest = 0x0A
}
