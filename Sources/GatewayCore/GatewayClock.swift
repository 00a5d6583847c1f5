public import Foundation

/// The time the gateway runs on: the wall clock that schedules, sun events and timestamps read, a
/// monotonic reading for how long something has waited, and sleeping. Every timer in the gateway
/// (the ticker, the store writer's delays and retries, the mapping watcher, the drop report) sleeps
/// on it, so a test that moves a `ManualClock` moves all of them, with no real waiting.
public protocol GatewayClock: Sendable {
    /// Wall-clock time.
    var now: Date { get }
    /// Monotonic time since the clock began: never jumps when the wall clock is set.
    var uptime: Duration { get }
    /// Returns after `duration` of this clock's time; throws `CancellationError` when cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real time.
public struct SystemClock: GatewayClock {
    private let start = ContinuousClock.now

    public init() {}

    public var now: Date { Date() }
    public var uptime: Duration { ContinuousClock.now - start }
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
