/// What went wrong in the HAP module, said so that a person can act on it.
public enum HAPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// TLV8 bytes that do not parse.
    case malformedTLV(String)
    /// A JSON body that does not parse or lacks a field.
    case malformedJSON(String)
    /// A setup code that is not `XXX-XX-XXX` digits, or is one of the trivial codes.
    case invalidSetupCode(String)
    /// A setup ID that is not four characters of 0-9 and A-Z.
    case invalidSetupID(String)
    /// A device ID that is not six hexadecimal bytes joined by colons.
    case invalidDeviceID(String)
    /// Stored keys that cannot be used.
    case invalidKey(String)
    /// The pairing store could not be read or written.
    case storage(String)
    /// The server could not listen.
    case listen(String)
    /// Another socket holds the port (another program, or another homegate).
    case portInUse(port: Int)

    public var description: String {
        switch self {
        case .malformedTLV(let reason): "malformed TLV8: \(reason)"
        case .malformedJSON(let reason): "malformed JSON: \(reason)"
        case .invalidSetupCode(let reason): "invalid setup code: \(reason)"
        case .invalidSetupID(let reason): "invalid setup ID: \(reason)"
        case .invalidDeviceID(let reason): "invalid device ID: \(reason)"
        case .invalidKey(let reason): "invalid key: \(reason)"
        case .storage(let reason): "pairing store: \(reason)"
        case .listen(let reason): "HAP server cannot listen: \(reason)"
        case .portInUse(let port): "HAP server cannot listen: port \(port) is in use"
        }
    }
}
