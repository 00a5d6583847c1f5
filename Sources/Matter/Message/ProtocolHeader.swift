/// A Matter protocol header (Matter specification 4.4.3): exchange, protocol, opcode and the
/// acknowledgement, encrypted with the payload in a secure session.
public struct ProtocolHeader: Sendable, Equatable {
    public var isInitiator: Bool
    /// The R flag: the sender wants an acknowledgement (MRP).
    public var needsAcknowledgement: Bool
    /// The A flag's counter: the message this one acknowledges.
    public var acknowledgedCounter: UInt32?
    public var opcode: UInt8
    public var exchangeID: UInt16
    public var protocolID: ProtocolID

    public init(
        isInitiator: Bool, needsAcknowledgement: Bool, acknowledgedCounter: UInt32? = nil, opcode: UInt8, exchangeID: UInt16,
        protocolID: ProtocolID
    ) {
        self.isInitiator = isInitiator
        self.needsAcknowledgement = needsAcknowledgement
        self.acknowledgedCounter = acknowledgedCounter
        self.opcode = opcode
        self.exchangeID = exchangeID
        self.protocolID = protocolID
    }

    public func encoded() -> [UInt8] {
        var flags: UInt8 = 0
        if isInitiator { flags |= 0x01 }
        if acknowledgedCounter != nil { flags |= 0x02 }
        if needsAcknowledgement { flags |= 0x04 }
        if protocolID.vendor != 0 { flags |= 0x10 }
        var out: [UInt8] = [flags, opcode] + littleEndian(exchangeID)
        if protocolID.vendor != 0 { out += littleEndian(protocolID.vendor) }
        out += littleEndian(protocolID.number)
        if let acknowledgedCounter { out += littleEndian(acknowledgedCounter) }
        return out
    }

    /// The header at the start of `bytes` and the application payload after it.
    public static func decode(_ bytes: [UInt8]) throws -> (header: ProtocolHeader, payload: [UInt8]) {
        var reader = ByteReader(bytes, what: "protocol header")
        let flags = try reader.uint8()
        let opcode = try reader.uint8()
        let exchangeID = try reader.uint16()
        let vendor = flags & 0x10 != 0 ? try reader.uint16() : 0
        let protocolID = ProtocolID(vendor: vendor, number: try reader.uint16())
        let acknowledged = flags & 0x02 != 0 ? try reader.uint32() : nil
        if flags & 0x08 != 0 {
            _ = try reader.take(Int(try reader.uint16()))  // secured extensions: none defined yet
        }
        let header = ProtocolHeader(
            isInitiator: flags & 0x01 != 0, needsAcknowledgement: flags & 0x04 != 0, acknowledgedCounter: acknowledged,
            opcode: opcode, exchangeID: exchangeID, protocolID: protocolID)
        return (header, reader.remaining)
    }
}

/// A protocol: the vendor (0 for the Matter standard) and its number.
public struct ProtocolID: Sendable, Hashable {
    public var vendor: UInt16
    public var number: UInt16

    public init(vendor: UInt16 = 0, number: UInt16) {
        self.vendor = vendor
        self.number = number
    }

    public static let secureChannel = ProtocolID(number: 0x0000)
    public static let interactionModel = ProtocolID(number: 0x0001)
}

/// The Secure Channel protocol's opcodes (Matter specification 4.11.1).
public enum SecureChannelOpcode: UInt8, Sendable {
    case messageCounterSyncRequest = 0x00
    case messageCounterSyncResponse = 0x01
    case standaloneAck = 0x10
    case pbkdfParamRequest = 0x20
    case pbkdfParamResponse = 0x21
    case pake1 = 0x22
    case pake2 = 0x23
    case pake3 = 0x24
    case sigma1 = 0x30
    case sigma2 = 0x31
    case sigma3 = 0x32
    case sigma2Resume = 0x33
    case statusReport = 0x40
}
