/// The counter a sender stamps on its messages (Matter specification 4.6.1): it starts at a random
/// value in [1, 2^28] so that a restarted node does not repeat its last session's counters.
public struct MessageCounter: Sendable {
    public private(set) var current: UInt32

    public init(startingAt value: UInt32 = UInt32.random(in: 1...(1 << 28))) {
        current = value
    }

    /// The counter for the next message.
    public mutating func next() -> UInt32 {
        current &+= 1
        return current
    }
}

/// What a receiver remembers of a peer's counters (Matter specification 4.6.5): the largest seen and
/// a bitmap of the 32 before it. Encrypted unicast sessions refuse anything older than the window;
/// unencrypted sessions (`allowsRollover`) take an older counter as a restarted peer.
public struct ReceptionWindow: Sendable {
    public static let size: UInt32 = 32
    private var maximum: UInt32?
    /// Bit k set: counter `maximum - 1 - k` was seen.
    private var seen: UInt32 = 0
    private let allowsRollover: Bool

    public init(allowsRollover: Bool) {
        self.allowsRollover = allowsRollover
    }

    public enum Verdict: Sendable, Equatable {
        case new
        case duplicate
    }

    /// Records `counter` and says whether it is new; a duplicate is acknowledged again but not processed.
    public mutating func receive(_ counter: UInt32) -> Verdict {
        guard let maximum else {
            self.maximum = counter
            return .new
        }
        let ahead = counter &- maximum  // modulo 2^32: "ahead" when within the lower half
        if ahead == 0 { return .duplicate }
        if ahead < 1 << 31 {
            // Smart shifts: by 32 or more they give 0, forgetting the whole window.
            seen = seen << ahead | (ahead <= Self.size ? 1 << (ahead - 1) : 0)
            self.maximum = counter
            return .new
        }
        let behind = maximum &- counter
        if behind <= Self.size {
            let bit: UInt32 = 1 << (behind - 1)
            if seen & bit != 0 { return .duplicate }
            seen |= bit
            return .new
        }
        if allowsRollover {
            self.maximum = counter
            seen = 0
            return .new
        }
        return .duplicate
    }
}
