/// What the router needs to know about the connection a request came on.
struct HAPConnectionState: Sendable {
    struct Session: Sendable {
        var controllerID: String
        var isAdmin: Bool
    }

    struct PreparedWrite: Sendable {
        var pid: UInt64
        var deadline: ContinuousClock.Instant
    }

    let id: HAPConnectionID
    var session: Session?
    var pendingVerify: PairVerify.Pending?
    var subscriptions: Set<HAPCharacteristicID> = []
    var preparedWrite: PreparedWrite?

    init(id: HAPConnectionID) {
        self.id = id
    }
}
