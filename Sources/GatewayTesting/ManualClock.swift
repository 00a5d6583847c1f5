public import Foundation
public import GatewayCore
import Synchronization

/// Time that moves only when a test says so. `advance` wakes every sleeper whose time has come and
/// returns once each has gone back to sleep, so that what a loop woke up to do (a tick, a mapping
/// reload) has been done when it returns.
public final class ManualClock: GatewayClock {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var uptime = Duration.zero
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Calls to `sleep` so far.
        var calls = 0
        var cancelled: Set<Int> = []
    }

    private let state: Mutex<State>

    public init(_ start: Date) {
        state = Mutex(State(now: start))
    }

    public var now: Date { state.withLock { $0.now } }
    public var uptime: Duration { state.withLock { $0.uptime } }
    /// How many tasks are asleep on this clock.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.calls += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil || Task.isCancelled { return .failure(CancellationError()) }
                    if duration <= .zero { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: state.uptime + duration, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)  // not asleep yet: it will see this when it tries
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `seconds` and wakes whoever is due; see `set`.
    public func advance(by seconds: TimeInterval, settle: Duration = .seconds(5)) async {
        await move(settle: settle) { $0.now.addingTimeInterval(seconds) }
    }

    /// Sets the wall clock (forward only: monotonic time moves by the same amount), wakes every
    /// sleeper that is now due, and waits (at most `settle` of real time) until as many calls to
    /// `sleep` have come as it woke sleepers: the woken loops have done their work and sleep again.
    /// (A woken task that does not sleep again costs the `settle`, not a wrong answer.)
    public func set(_ date: Date, settle: Duration = .seconds(5)) async {
        await move(settle: settle) { _ in date }
    }

    private func move(settle: Duration, _ to: (State) -> Date) async {
        let (woken, callsBefore) = state.withLock { state -> ([Sleeper], Int) in
            let target = to(state)
            let step = max(0, target.timeIntervalSince(state.now))
            state.now = max(state.now, target)
            state.uptime += .milliseconds(Int64((step * 1000).rounded()))
            let uptime = state.uptime
            let before = state.calls
            let due = state.sleepers.filter { $0.deadline <= uptime }
            state.sleepers.removeAll { $0.deadline <= uptime }
            return (due, before)
        }
        for sleeper in woken { sleeper.continuation.resume() }
        let deadline = ContinuousClock.now + settle
        while state.withLock({ $0.calls }) - callsBefore < woken.count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
