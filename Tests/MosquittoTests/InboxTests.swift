import Testing

@testable import Mosquitto

/// The hand-off from the network thread, without a broker: what arrives while the consumer is busy
/// comes out whole and in order, in chunks, and a consumer that falls behind loses the oldest.
struct InboxTests {
    private func message(_ number: Int) -> MQTTMessage {
        MQTTMessage(topic: "t/\(number % 7)", payload: Array("\(number)".utf8))
    }

    private func numbers(_ messages: some Sequence<MQTTMessage>) -> [Int] {
        messages.map { Int($0.payloadString)! }
    }

    @Test("a burst comes out in order, in chunks of at most a thousand")
    func burstInChunks() async throws {
        let inbox = Inbox(limit: 100_000)
        for number in 0..<2_500 { inbox.append(message(number)) }
        var iterator = MQTTMessages(inbox: inbox).makeAsyncIterator()
        let chunks = try #require(await iterator.nextChunks())
        #expect(chunks.map(\.count) == [1_000, 1_000, 500])
        #expect(numbers(chunks.joined()) == Array(0..<2_500))
        #expect(inbox.droppedCount == 0)
    }

    @Test("one at a time and the rest as a batch: nothing twice, nothing skipped")
    func mixedReading() async throws {
        let inbox = Inbox(limit: 100_000)
        for number in 0..<1_500 { inbox.append(message(number)) }
        var iterator = MQTTMessages(inbox: inbox).makeAsyncIterator()
        var seen: [Int] = []
        for _ in 0..<1_200 { seen += numbers([try #require(await iterator.next())]) }
        inbox.append(message(1_500))
        seen += numbers(try #require(await iterator.nextBatch()))
        #expect(seen == Array(0..<1_500))
        #expect(numbers(try #require(await iterator.nextBatch())) == [1_500])
        inbox.finish()
        #expect(await iterator.next() == nil)
    }

    @Test("past the limit the oldest go, counted, and what is kept is the newest in order", arguments: [100, 2_500])
    func oldestDropped(limit: Int) async throws {
        let inbox = Inbox(limit: limit)
        for number in 0..<10_001 { inbox.append(message(number)) }
        var iterator = MQTTMessages(inbox: inbox).makeAsyncIterator()
        let kept = numbers(try #require(await iterator.nextBatch()))
        #expect(kept.count <= limit)
        #expect(kept.count > limit - limit / 10 - 1)
        #expect(kept == Array((10_001 - kept.count)..<10_001))
        #expect(inbox.droppedCount + kept.count == 10_001)
    }

    @Test("a waiting consumer is handed the message that wakes it")
    func wakesWaiter() async throws {
        let inbox = Inbox(limit: 10)
        let reader = Task {
            var iterator = MQTTMessages(inbox: inbox).makeAsyncIterator()
            return await iterator.nextBatch()
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while !inbox.hasWaiter, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(inbox.hasWaiter)
        inbox.append(message(42))
        #expect(numbers(try #require(await reader.value)) == [42])
        #expect(inbox.waitingCount == 0, "handed over, not also kept")
    }
}
