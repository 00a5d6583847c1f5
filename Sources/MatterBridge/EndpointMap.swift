/// The endpoint number of every bridged service and composed device's parent the bridge has ever
/// served, kept in the database (`adapter_state`, key `matter.endpoints`): each keeps its number for
/// good, and a number is never given to another, even after its own left (ecosystems would take the
/// newcomer for it).
struct EndpointMap: Codable, Sendable, Equatable {
    /// Endpoint 0 is the root node, 1 the Aggregator: bridged devices start at 2.
    static let first: UInt16 = 2

    var next: UInt16 = Self.first
    /// By `EndpointMap.key`.
    var endpoints: [String: UInt16] = [:]

    /// A service of an accessory is one endpoint (a Bridged Node, or a composed device's child).
    static func key(accessory: String, service: String) -> String { accessory + "/" + service }

    /// An accessory with several bridged services is a composed device: its parent endpoint's key
    /// (no service has an empty id, so no service's key is this one).
    static func key(accessory: String) -> String { accessory + "/" }

    /// The number of `key`, given now if it has none (nil when all 65,533 are taken).
    mutating func number(_ key: String) -> UInt16? {
        if let number = endpoints[key] { return number }
        guard next < UInt16.max else { return nil }
        endpoints[key] = next
        defer { next += 1 }
        return next
    }
}
