/// One controller connection, so that a write's own connection is left out of its events.
public struct HAPConnectionID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "connection \(rawValue)" }
}
