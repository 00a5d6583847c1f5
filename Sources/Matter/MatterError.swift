/// What went wrong in the Matter module, said so that a person can act on it.
public enum MatterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// TLV bytes that do not parse, with the offset where parsing stopped.
    case malformedTLV(String, offset: Int)
    /// A TLV element that parses but is not what a message needs (a missing field, a wrong type).
    case unexpectedTLV(String)
    /// A message or protocol header that does not parse.
    case malformedMessage(String)
    /// A message that decrypts to nothing (wrong key, tampered bytes) or cannot be encrypted.
    case decryptionFailed(String)
    /// A crypto primitive that failed (a point not on the curve, an OpenSSL call that failed).
    case crypto(String)
    /// A PASE exchange that cannot go on (a wrong passcode shows as a bad confirmation).
    case pase(String)
    /// A passcode or discriminator outside what the specification allows.
    case invalidSetup(String)
    /// The state folder could not be read or written.
    case storage(String)
    /// The UDP socket could not be opened.
    case listen(String)

    public var description: String {
        switch self {
        case .malformedTLV(let reason, let offset): "malformed Matter TLV at byte \(offset): \(reason)"
        case .unexpectedTLV(let reason): "unexpected Matter TLV: \(reason)"
        case .malformedMessage(let reason): "malformed Matter message: \(reason)"
        case .decryptionFailed(let reason): "Matter message cipher: \(reason)"
        case .crypto(let reason): "Matter crypto: \(reason)"
        case .pase(let reason): "PASE: \(reason)"
        case .invalidSetup(let reason): "invalid Matter setup: \(reason)"
        case .storage(let reason): "Matter state: \(reason)"
        case .listen(let reason): "Matter node cannot listen: \(reason)"
        }
    }
}
