/// Where an advertisement stands, for the log and for health.
public enum AdvertisementState: Sendable, Hashable, CustomStringConvertible {
    /// Not started yet, or stopped.
    case stopped
    /// Handed to avahi-daemon, which is probing the network for the name (about a second).
    case registering(name: String)
    /// Announced. `renamedFrom` is the name asked for when another host on the network had it and
    /// avahi chose `name` instead.
    case advertised(name: String, renamedFrom: String?)
    /// Not on the network, and why. The advertiser keeps trying by itself (it reconnects when the
    /// daemon or the bus comes back); the service itself still works for whoever knows its address.
    case notAdvertised(reason: String)

    public var isAdvertised: Bool {
        if case .advertised = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .stopped: "not advertised: stopped"
        case .registering(let name): "registering '\(name)' with avahi-daemon"
        case .advertised(let name, nil): "advertised as '\(name)'"
        case .advertised(let name, let requested?): "advertised as '\(name)' ('\(requested)' is taken on the network)"
        case .notAdvertised(let reason): "not advertised: \(reason); controllers that know the address can still pair"
        }
    }
}

/// What `ServiceAdvertiser.update(txt:)` did with the new TXT record.
public enum TXTUpdate: Sendable, Hashable {
    /// The announced record was replaced in place (no withdrawal, no new probing).
    case updatedInPlace
    /// Nothing is announced right now; the record goes out with the next registration.
    case keptForNextRegistration
}
