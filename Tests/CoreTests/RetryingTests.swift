import Foundation
import GatewayCore
import GatewayTesting
import Synchronization
import Testing

@Suite("retrying: a bridge that cannot serve is tried again with a backoff")
struct RetryingTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// Waits (a few seconds at most) until a task sleeps on `clock`.
    static func asleep(_ clock: ManualClock) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while clock.sleeping == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(clock.sleeping == 1)
    }

    @Test("tries again after 1 s, then twice as long up to `longest`; each failure heard, a reason new only when it changed")
    func backoff() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 0))
        let reasons = ["port 5540 is taken", "port 5540 is taken", "no address", "no address"]
        let tries = Mutex(0)
        let heard = Mutex<[String]>([])
        let running = Task {
            await retrying(longest: .seconds(3), clock: clock) {
                let index = tries.withLock { tries in
                    defer { tries += 1 }
                    return tries
                }
                if index < reasons.count { throw Refused(description: reasons[index]) }
            } failed: { reason, isNew in
                heard.withLock { $0.append(isNew ? "new: \(reason)" : reason) }
            }
        }
        try await Self.asleep(clock)
        #expect(tries.withLock { $0 } == 1)
        await clock.advance(by: 1)  // the second try, then 2 s
        #expect(tries.withLock { $0 } == 2)
        await clock.advance(by: 1, settle: .milliseconds(50))
        #expect(tries.withLock { $0 } == 2)
        await clock.advance(by: 1)  // the third, then 3 s (not 4)
        #expect(tries.withLock { $0 } == 3)
        await clock.advance(by: 2, settle: .milliseconds(50))
        #expect(tries.withLock { $0 } == 3)
        await clock.advance(by: 1)
        await clock.advance(by: 3, settle: .zero)  // the fifth works: no more tries
        await running.value
        #expect(tries.withLock { $0 } == 5)
        #expect(heard.withLock { $0 } == ["new: port 5540 is taken", "port 5540 is taken", "new: no address", "no address"])
    }

    @Test("ends when its task is cancelled while it waits")
    func cancelled() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 0))
        let tries = Mutex(0)
        let running = Task {
            await retrying(longest: .seconds(60), clock: clock) {
                tries.withLock { $0 += 1 }
                throw Refused(description: "port 5540 is taken")
            } failed: { _, _ in
            }
        }
        try await Self.asleep(clock)
        running.cancel()
        await running.value
        #expect(tries.withLock { $0 } == 1)
    }
}
