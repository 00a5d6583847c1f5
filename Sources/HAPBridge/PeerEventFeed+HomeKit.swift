import GatewayCore

extension PeerEventFeed {
    /// The HomeKit bridge's feed: value changes, reachability and services renamed (their
    /// ConfiguredName is evented); the rest of the tree comes with `TreeChanges` and a snapshot.
    static func homeKit(capacity: Int) -> PeerEventFeed {
        PeerEventFeed(capacity: capacity) { event in
            switch event {
            case .characteristic, .accessory(_, .reachability, _), .accessory(_, .serviceRenamed, _): true
            default: false
            }
        }
    }
}
