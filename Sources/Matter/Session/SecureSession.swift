/// A secure unicast session (Matter specification 4.7): the keys from PASE (or CASE later), the
/// counters in each direction, and the peer's MRP intervals. This node is the responder, so it
/// sends with the R2I key and receives with the I2R key.
public struct SecureSession<Peer: Hashable & Sendable>: Sendable {
    public let localSessionID: UInt16
    public let peerSessionID: UInt16
    public let keys: SessionKeys
    public var peer: Peer
    public let peerParameters: SessionParameters
    /// Node ids are unspecified (0) in a PASE session; they go into the nonce.
    public var localNodeID: UInt64 = 0
    public var peerNodeID: UInt64 = 0
    /// Who the peer is for access control: the commissioner (PASE) or a node of a fabric (CASE).
    public var subject: Subject = .pase
    var sendCounter = MessageCounter()
    var receptionWindow = ReceptionWindow(allowsRollover: false)

    public init(localSessionID: UInt16, peerSessionID: UInt16, keys: SessionKeys, peer: Peer, peerParameters: SessionParameters) {
        self.localSessionID = localSessionID
        self.peerSessionID = peerSessionID
        self.keys = keys
        self.peer = peer
        self.peerParameters = peerParameters
    }

    /// Security flags ‖ message counter ‖ source node id (Matter specification 4.8.1.1).
    static func nonce(securityFlags: UInt8, counter: UInt32, sourceNodeID: UInt64) -> [UInt8] {
        [securityFlags] + littleEndian(counter) + littleEndian(sourceNodeID)
    }

    /// The protocol header and payload of a received message, authenticated with its message header.
    func open(_ datagram: [UInt8], header: MessageHeader, headerLength: Int) throws -> [UInt8] {
        let nonce = Self.nonce(securityFlags: header.securityFlags, counter: header.messageCounter, sourceNodeID: peerNodeID)
        return try AESCCM.open(
            Array(datagram[headerLength...]), key: keys.initiatorToResponder, nonce: nonce, authenticating: Array(datagram[..<headerLength])
        )
    }

    /// An encrypted datagram carrying `message` (protocol header and payload), and its counter.
    mutating func seal(_ message: [UInt8]) throws -> (datagram: [UInt8], counter: UInt32) {
        let header = MessageHeader(sessionID: peerSessionID, messageCounter: sendCounter.next())
        let aad = header.encoded()
        let nonce = Self.nonce(securityFlags: header.securityFlags, counter: header.messageCounter, sourceNodeID: localNodeID)
        return (aad + (try AESCCM.seal(message, key: keys.responderToInitiator, nonce: nonce, authenticating: aad)), header.messageCounter)
    }
}
