import GatewayCore

extension PeerEventFeed {
    /// The Matter bridge's feed: value changes and reachability; the rest of the tree comes with
    /// `TreeChanges` and a snapshot.
    static func matter(capacity: Int) -> PeerEventFeed {
        PeerEventFeed(capacity: capacity) { event in
            switch event {
            case .characteristic, .accessory(_, .reachability, _): true
            default: false
            }
        }
    }
}
