/// The error codes of the pairing messages (TLV item 0x07).
public enum PairingErrorCode: UInt8, Sendable, Error {
    case unknown = 1
    case authentication = 2
    case backoff = 3
    case maxPeers = 4
    case maxTries = 5
    case unavailable = 6
    case busy = 7
}
