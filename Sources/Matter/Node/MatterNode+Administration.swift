import Logging
import Synchronization

/// What the device does to its own commissioning, from its own user interface (homegate's page and
/// commands, not a controller's invoke): an enhanced commissioning window opened or revoked, a
/// fabric removed. The same state as Administrator Commissioning's and RemoveFabric's.
extension MatterNode {
    /// An open enhanced commissioning window.
    public struct Window: Sendable, Equatable {
        public var discriminator: UInt16
        public var deadline: ContinuousClock.Instant
        /// The administrator that opened it (OpenCommissioningWindow); nil when the device did.
        public var fabricIndex: UInt8?
    }

    /// Why the node refused an administration request.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// A window is open already, or a commissioning is under way (its fail-safe armed).
        case busy(String)
        /// No window is open.
        case noWindow
        /// No fabric of that index.
        case noFabric(UInt8)

        public var description: String {
            switch self {
            case .busy(let reason): reason
            case .noWindow: "no commissioning window is open"
            case .noFabric(let index): "the node belongs to no fabric \(index)"
            }
        }
    }

    /// Enhanced commissioning windows last 3 to 15 minutes (Matter specification 11.19.8.1).
    public static let windowTimeouts: ClosedRange<Duration> = .seconds(180) ... .seconds(900)

    /// The open window, if any (one that has timed out is closed by the next `tick`).
    public var window: Window? {
        state.withLock { state in
            state.window.map { Window(discriminator: $0.discriminator, deadline: $0.deadline, fabricIndex: $0.fabricIndex) }
        }
    }

    /// Opens an enhanced commissioning window with `verifier` (a passcode of the device's choosing)
    /// and `discriminator`, until `now + timeout`; the node is then advertised as commissionable.
    public func openWindow(
        verifier: PASEVerifier, discriminator: UInt16, timeout: Duration, now: ContinuousClock.Instant = .now
    ) throws(Refusal) {
        let (before, after) = try state.withLock { state throws(Refusal) in
            let before = state.advertising
            if state.window != nil { throw .busy("a commissioning window is open already") }
            if state.failSafe != nil { throw .busy("a commissioning is under way (its fail-safe is armed)") }
            let timeout = min(max(timeout, Self.windowTimeouts.lowerBound), Self.windowTimeouts.upperBound)
            state.window = NodeState.CommissioningWindow(
                verifier: verifier, discriminator: discriminator & 0xFFF, deadline: now + timeout, fabricIndex: nil, vendorID: nil)
            state.refresh()
            return (before, state.advertising)
        }
        logger.info("commissioning window opened", metadata: ["discriminator": "\(discriminator & 0xFFF)"])
        announce(before, after)
    }

    /// Closes the open window (RevokeCommissioning's effect: a commissioning under way through it is rolled back).
    public func revokeWindow() throws(Refusal) {
        let (before, after, stored) = try state.withLock { state throws(Refusal) in
            let before = state.advertising
            guard state.window != nil else { throw .noWindow }
            state.window = nil
            let rolledBack = state.failSafe != nil
            if rolledBack { state.rollBack() }
            state.refresh()
            return (before, state.advertising, rolledBack ? state.persistentState() : nil)
        }
        logger.info("commissioning window revoked")
        if let stored { persist?(stored) }
        announce(before, after)
    }

    /// Leaves fabric `index` (RemoveFabric's effect): its ACL entries go, its sessions and
    /// subscriptions end (the server closes them), and with no fabric left the node is commissionable again.
    public func removeFabric(_ index: UInt8) throws(Refusal) {
        let (before, after, stored) = try state.withLock { state throws(Refusal) in
            let before = state.advertising
            guard state.fabrics.contains(where: { $0.index == index }) else { throw .noFabric(index) }
            state.fabrics.removeAll { $0.index == index }
            state.acl.removeAll { $0.fabricIndex == index }
            if state.failSafe?.addedFabric == index { state.failSafe?.addedFabric = nil }
            state.refresh()
            return (before, state.advertising, state.persistentState())
        }
        logger.info("fabric removed", metadata: ["index": "\(index)"])
        persist?(stored)
        announce(before, after)
    }

    private func announce(_ before: Advertising, _ after: Advertising) {
        if after != before { advertisingChanged?(after) }
        changed.yield()
    }
}

extension MatterNode {
    /// What `persist` is given after a change: for a program that changes the stored node while it
    /// does not serve (`homegate matter unpair` with homegate stopped).
    public var persistentState: [UInt8] { state.withLock { $0.persistentState() } }
}
