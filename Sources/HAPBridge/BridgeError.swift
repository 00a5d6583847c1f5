/// Why the HomeKit bridge cannot start or keep its state, said so that a person can act on it.
public enum BridgeError: Error, Sendable, CustomStringConvertible {
    /// A setting that cannot be used.
    case configuration(String)
    /// The identifier map or the pairing store could not be read or written.
    case storage(String)
    /// No such bridge, or no such controller on it.
    case notFound(String)
    /// The running homegate's HTTP API refused a request or answered something else than expected.
    case api(String)

    public var description: String {
        switch self {
        case .configuration(let reason): "hap: \(reason)"
        case .storage(let reason): "hap: \(reason)"
        case .notFound(let reason): "hap: \(reason)"
        case .api(let reason): "hap: \(reason)"
        }
    }
}
