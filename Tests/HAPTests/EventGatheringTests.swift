import Testing

@testable import HAP

@Suite("Events: the first change at once, the rest of a burst gathered, intermediate values and every press kept")
struct EventGatheringTests {
    let motion = HAPCharacteristicID(aid: 2, iid: 9)
    let brightness = HAPCharacteristicID(aid: 3, iid: 10)
    let button = HAPCharacteristicID(aid: 4, iid: 9)
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func change(_ id: HAPCharacteristicID, _ value: HAPValue) -> HAPCharacteristicChange {
        HAPCharacteristicChange(id: id, value: value)
    }

    /// The values of each message, as the controller receives them.
    func values(_ messages: [[HAPEventGathering.Entry]]) -> [[HAPValue]] { messages.map { $0.map(\.value) } }

    @Test("an isolated change is due at once, and opens a window")
    func isolatedChangeAtOnce() {
        var gathering = HAPEventGathering(window: .milliseconds(240))
        gathering.add([change(motion, .bool(true))], presses: [])
        #expect(gathering.isDue(at: at(0)))
        #expect(values(gathering.take(at: at(0)) { _ in true }) == [[.bool(true)]])
        // A quiet window later, the next change goes at once again.
        gathering.add([change(motion, .bool(false))], presses: [])
        #expect(!gathering.isDue(at: at(100)))
        #expect(gathering.deadline(at: at(100)) == at(240))
        #expect(gathering.isDue(at: at(240)))
        #expect(values(gathering.take(at: at(240)) { _ in true }) == [[.bool(false)]])
        gathering.add([change(motion, .bool(true))], presses: [])
        #expect(!gathering.isDue(at: at(479)))
        #expect(gathering.isDue(at: at(480)))
    }

    @Test("a burst after the first change is one EVENT at the window's end, with A→B→A kept whole, newest first")
    func burstGathered() {
        var gathering = HAPEventGathering(window: .milliseconds(240))
        gathering.add([change(brightness, .int(10))], presses: [])
        _ = gathering.take(at: at(0)) { _ in true }
        for (time, value) in [(20, 20), (40, 30), (60, 20), (80, 20)] {
            gathering.add([change(brightness, .int(value))], presses: [])
            #expect(!gathering.isDue(at: at(time)), "at \(time) ms the window is still open")
        }
        gathering.add([change(motion, .bool(true))], presses: [])
        let messages = gathering.take(at: at(240)) { _ in true }
        // 20, 30, 20 (the repeated 20 dropped), then motion: one message, newest first.
        #expect(values(messages) == [[.bool(true), .int(20), .int(30), .int(20)]])
        #expect(messages[0].map(\.id) == [motion, brightness, brightness, brightness])
        #expect(gathering.queue.isEmpty)
    }

    @Test("a value that did not change from the one gathered before it is not repeated")
    func sameValueOnce() {
        var gathering = HAPEventGathering(window: .milliseconds(240))
        gathering.add([change(motion, .bool(true)), change(motion, .bool(true))], presses: [])
        #expect(gathering.queue.count == 1)
    }

    @Test("a press is due at once even within a window, takes the gathered values along, and opens no window")
    func pressAtOnce() {
        var gathering = HAPEventGathering(window: .milliseconds(240))
        gathering.add([change(brightness, .int(10))], presses: [])
        _ = gathering.take(at: at(0)) { _ in true }
        gathering.add([change(brightness, .int(20))], presses: [])
        gathering.add([change(button, .int(0))], presses: [button])
        #expect(gathering.isDue(at: at(10)))
        #expect(values(gathering.take(at: at(10)) { _ in true }) == [[.int(0), .int(20)]])
        gathering.add([change(button, .int(1))], presses: [button])
        #expect(values(gathering.take(at: at(20)) { _ in true }) == [[.int(1)]])
        // Presses alone opened no window: a change at 250, when the values' window (10 + 240) ends, goes at once.
        gathering.add([change(motion, .bool(true))], presses: [])
        #expect(gathering.isDue(at: at(250)))
    }

    @Test("presses that queued behind a response are each delivered, the same press twice in separate EVENTs, in order")
    func pressesQueuedBehindAResponse() {
        var gathering = HAPEventGathering(window: .milliseconds(240))
        // While a request is in flight nothing is taken; three presses arrive.
        gathering.add([change(button, .int(0))], presses: [button])
        gathering.add([change(button, .int(0))], presses: [button])
        gathering.add([change(motion, .bool(true))], presses: [])
        gathering.add([change(button, .int(2))], presses: [button])
        let messages = gathering.take(at: at(50)) { _ in true }
        #expect(values(messages) == [[.int(0)], [.bool(true), .int(0)], [.int(2)]])
    }

    @Test("what the controller unsubscribed from meanwhile is left out")
    func unsubscribedDropped() {
        var gathering = HAPEventGathering(window: .milliseconds(240))
        gathering.add([change(motion, .bool(true)), change(brightness, .int(5))], presses: [])
        let messages = gathering.take(at: at(0)) { $0 == brightness }
        #expect(values(messages) == [[.int(5)]])
    }

    @Test("with nothing queued nothing is due and no timer is needed")
    func nothingQueued() {
        let gathering = HAPEventGathering(window: .milliseconds(240))
        #expect(!gathering.isDue(at: at(0)))
        #expect(gathering.deadline(at: at(0)) == nil)
    }
}
