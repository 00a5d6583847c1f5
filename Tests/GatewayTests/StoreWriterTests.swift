@testable import Gateway
import Foundation
import HomeModel
import Logging
import Persistence
import Synchronization
import Testing

/// A store that fails its first writes, as a full disk would, and keeps what it was given after.
final class FlakyStore: HomeStore {
    let failuresLeft: Mutex<Int>
    let written = Mutex<[StoreBatch]>([])
    init(failures: Int) { failuresLeft = Mutex(failures) }
    func load() throws(PersistenceError) -> StoredHome? { nil }
    func write(_ batch: StoreBatch) async throws(PersistenceError) {
        let fail = failuresLeft.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if fail { throw .failed(path: "flaky", operation: "writing", reason: "disk full") }
        written.withLock { $0.append(batch) }
    }
}

@Suite("The store writer: in order, off the message path, nothing dropped when a write fails")
struct StoreWriterTests {
    @Test("a failed write is retried together with what came after it; nothing is dropped and the answers are not held back")
    func retries() async throws {
        let store = FlakyStore(failures: 2)
        let published = Mutex<[String]>([])
        let writer = StoreWriter(store: store, logger: Logger(label: "test")) { messages in
            published.withLock { $0 += messages.map(\.topic) }
        }
        let running = Task { await writer.run() }
        var first = StoreBatch()
        first.rooms["attic"] = Room(id: "attic", name: "Attic", home: "home")
        writer.enqueue(first, then: [Outgoing("homegate/response/room/add", "{}")])
        var second = StoreBatch()
        second.rooms["cellar"] = Room(id: "cellar", name: "Cellar", home: "home")
        writer.enqueue(second, then: [])
        let deadline = ContinuousClock.now + .seconds(10)
        while store.written.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        writer.close()
        await running.value
        let rooms = store.written.withLock { $0.flatMap { $0.rooms.map(\.0) } }
        #expect(Set(rooms) == ["attic", "cellar"], "both batches reached the store once it worked again")
        #expect(published.withLock { $0 } == ["homegate/response/room/add"])
    }

    @Test("values wait up to a second to share a transaction; an answer does not wait for them")
    func valuesWait() async throws {
        let store = FlakyStore(failures: 0)
        let published = Mutex<[ContinuousClock.Instant]>([])
        // Values may wait a minute here: an answer that waited for them would not come at all.
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), valuesDelay: .seconds(60)) { messages in
            if !messages.isEmpty { published.withLock { $0.append(ContinuousClock.now) } }
        }
        let running = Task { await writer.run() }
        var values = StoreBatch()
        values.values[CharacteristicPath("bulb/lightbulb/brightness")!] = .int(40)
        let start = ContinuousClock.now
        writer.enqueue(values, then: [])
        try await Task.sleep(for: .milliseconds(50))
        #expect(store.written.withLock { $0.isEmpty }, "values alone are held back")
        var room = StoreBatch()
        room.rooms["attic"] = Room(id: "attic", name: "Attic", home: "home")
        writer.enqueue(room, then: [Outgoing("homegate/response/room/add", "{}")])
        let deadline = ContinuousClock.now + .seconds(5)
        while published.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let answered = try #require(published.withLock { $0.first }, "the answer went out with the room")
        #expect(answered - start < .seconds(5))
        #expect(store.written.withLock { $0.first?.values.count } == 1, "the waiting value went along in the same transaction")
        writer.close()
        await running.value
    }
}
