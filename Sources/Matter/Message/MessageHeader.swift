/// A Matter message header (Matter specification 4.4.1): the part every message has in the clear,
/// and the additional authenticated data of an encrypted message.
public struct MessageHeader: Sendable, Equatable {
    public enum Destination: Sendable, Equatable {
        case node(UInt64)
        case group(UInt16)
    }

    public var sessionID: UInt16
    /// The security flags byte: privacy (0x80), control message (0x40), extensions (0x20), session type (0x03).
    public var securityFlags: UInt8
    public var messageCounter: UInt32
    public var sourceNodeID: UInt64?
    public var destination: Destination?

    public init(
        sessionID: UInt16, securityFlags: UInt8 = 0, messageCounter: UInt32, sourceNodeID: UInt64? = nil, destination: Destination? = nil
    ) {
        self.sessionID = sessionID
        self.securityFlags = securityFlags
        self.messageCounter = messageCounter
        self.sourceNodeID = sourceNodeID
        self.destination = destination
    }

    /// Session 0 with the unicast session type: the unsecured session of session establishment.
    public var isUnsecured: Bool { sessionID == 0 && securityFlags & 0x03 == 0 }
    public var isGroup: Bool { securityFlags & 0x03 == 1 }

    public func encoded() -> [UInt8] {
        var flags: UInt8 = 0  // version 0
        if sourceNodeID != nil { flags |= 0x04 }
        switch destination {
        case .node: flags |= 0x01
        case .group: flags |= 0x02
        case nil: break
        }
        var out: [UInt8] = [flags] + littleEndian(sessionID) + [securityFlags & ~0x20] + littleEndian(messageCounter)
        if let sourceNodeID { out += littleEndian(sourceNodeID) }
        switch destination {
        case .node(let id): out += littleEndian(id)
        case .group(let id): out += littleEndian(id)
        case nil: break
        }
        return out
    }

    /// The header at the start of `bytes` and its length (message extensions are skipped).
    public static func decode(_ bytes: [UInt8]) throws -> (header: MessageHeader, length: Int) {
        var reader = ByteReader(bytes, what: "message header")
        let flags = try reader.uint8()
        guard flags >> 4 == 0 else { throw MatterError.malformedMessage("message format version \(flags >> 4), expected 0") }
        let sessionID = try reader.uint16()
        let securityFlags = try reader.uint8()
        guard securityFlags & 0x80 == 0 else { throw MatterError.malformedMessage("privacy-obfuscated headers are not supported") }
        let counter = try reader.uint32()
        let source = flags & 0x04 != 0 ? try reader.uint64() : nil
        let destination: Destination?
        switch flags & 0x03 {
        case 0: destination = nil
        case 1: destination = .node(try reader.uint64())
        case 2: destination = .group(try reader.uint16())
        default: throw MatterError.malformedMessage("destination size field 3 is reserved")
        }
        if securityFlags & 0x20 != 0 {
            _ = try reader.take(Int(try reader.uint16()))
        }
        let header = MessageHeader(
            sessionID: sessionID, securityFlags: securityFlags & ~0x20, messageCounter: counter, sourceNodeID: source,
            destination: destination)
        return (header, reader.offset)
    }
}

/// Bounds-checked little-endian reads; a short buffer is a `MatterError.malformedMessage` naming `what`.
struct ByteReader {
    let bytes: [UInt8]
    let what: String
    private(set) var offset = 0

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    var remaining: [UInt8] { Array(bytes[offset...]) }

    mutating func take(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= bytes.count - offset else {
            throw MatterError.malformedMessage("\(what): \(count) bytes needed at byte \(offset), \(bytes.count - offset) left")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint8() throws -> UInt8 { try take(1)[0] }
    mutating func uint16() throws -> UInt16 { UInt16(try integer(2)) }
    mutating func uint32() throws -> UInt32 { UInt32(try integer(4)) }
    mutating func uint64() throws -> UInt64 { try integer(8) }

    private mutating func integer(_ width: Int) throws -> UInt64 {
        try take(width).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
