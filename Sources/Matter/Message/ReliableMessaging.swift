/// The Message Reliability Protocol's timing (Matter specification 4.12.8, 2.5.6.1): how long to
/// wait before the n-th retransmission of a message to a peer with a given base interval.
public struct MRPParameters: Sendable, Equatable {
    public var idleInterval: Duration = .milliseconds(500)
    public var activeInterval: Duration = .milliseconds(300)
    public var activeThreshold: Duration = .milliseconds(4000)
    public static let maximumTransmissions = 5
    public static let backoffBase = 1.6
    public static let backoffMargin = 1.1
    public static let backoffJitter = 0.25
    public static let backoffThreshold = 1
    /// How long a received message waits for a piggybacked acknowledgement before a standalone one.
    public static let standaloneAckTimeout: Duration = .milliseconds(200)

    public init() {}

    /// `i · MARGIN · BASE^max(0, n − THRESHOLD) · (1 + jitter · JITTER)` with `jitter` in [0, 1].
    public static func backoff(base: Duration, transmission n: Int, jitter: Double) -> Duration {
        let exponent = Double(max(0, n - backoffThreshold))
        var factor = backoffMargin
        for _ in 0..<Int(exponent) { factor *= backoffBase }
        return base * (factor * (1 + jitter * backoffJitter))
    }
}

/// Messages sent with the R flag and not yet acknowledged, keyed by session and counter (counters
/// are per session). Time comes in as an argument, so tests drive it without sleeping.
public struct RetransmissionTable<Peer: Sendable>: Sendable {
    /// A sent message: this node's session id (0 for the unsecured session, where the acknowledgement arrives) and its counter.
    public struct Key: Sendable, Hashable {
        public var session: UInt16
        public var counter: UInt32

        public init(session: UInt16, counter: UInt32) {
            self.session = session
            self.counter = counter
        }
    }

    public struct Entry: Sendable {
        public var datagram: [UInt8]
        public var peer: Peer
        public var transmissions: Int
        public var deadline: ContinuousClock.Instant
        let baseInterval: Duration
    }

    public private(set) var entries: [Key: Entry] = [:]

    public init() {}

    /// Remembers a message just sent for the first time.
    public mutating func sent(
        _ key: Key, datagram: [UInt8], to peer: Peer, baseInterval: Duration, now: ContinuousClock.Instant,
        jitter: Double = .random(in: 0...1)
    ) {
        let wait = MRPParameters.backoff(base: baseInterval, transmission: 0, jitter: jitter)
        entries[key] = Entry(datagram: datagram, peer: peer, transmissions: 1, deadline: now + wait, baseInterval: baseInterval)
    }

    /// The peer acknowledged `key`; true when it was outstanding.
    @discardableResult
    public mutating func acknowledged(_ key: Key) -> Bool {
        entries.removeValue(forKey: key) != nil
    }

    /// The messages to send again at `now`, and those given up on after the last transmission.
    public mutating func due(now: ContinuousClock.Instant, jitter: Double = .random(in: 0...1)) -> (resend: [Entry], expired: [Key]) {
        var resend: [Entry] = []
        var expired: [Key] = []
        for (key, var entry) in entries where entry.deadline <= now {
            if entry.transmissions >= MRPParameters.maximumTransmissions {
                entries[key] = nil
                expired.append(key)
                continue
            }
            entry.deadline = now + MRPParameters.backoff(base: entry.baseInterval, transmission: entry.transmissions, jitter: jitter)
            entry.transmissions += 1
            entries[key] = entry
            resend.append(entry)
        }
        return (resend, expired)
    }

    /// The earliest deadline, for scheduling the next look.
    public var nextDeadline: ContinuousClock.Instant? { entries.values.map(\.deadline).min() }
}
