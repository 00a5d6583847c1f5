/// What the caller got wrong. Everything that goes wrong later, on the network or with the daemon,
/// is an `AdvertisementState.notAdvertised` instead: advertising is best effort.
public enum DNSSDError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidService(String)
    case invalidTXT(String)
    /// `start()` twice, or after `stop()`.
    case misuse(String)
    /// avahi could not set up its event loop (out of memory or file descriptors).
    case library(String)

    public var description: String {
        switch self {
        case .invalidService(let what): "DNS-SD service not accepted: \(what)"
        case .invalidTXT(let what): "DNS-SD TXT record not accepted: \(what)"
        case .misuse(let what): "DNS-SD advertiser: \(what)"
        case .library(let what): "DNS-SD advertiser: \(what)"
        }
    }
}
