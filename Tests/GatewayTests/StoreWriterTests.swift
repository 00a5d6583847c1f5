@testable import Gateway
import Foundation
import HomeModel
import JSON
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
    /// The owner's whole home, as the runtime would hand it over after a failed write.
    static func home(_ rooms: [String]) -> StoreBatch {
        var whole = StoreBatch()
        whole.replacesAll = true
        for room in rooms { whole.rooms[room] = Room(id: room, name: room.capitalized, home: "home") }
        return whole
    }

    @Test("after a failed write the whole home is written in its place; the answer waits for it")
    func retries() async throws {
        let store = FlakyStore(failures: 2)
        let published = Mutex<[String]>([])
        let writer = StoreWriter(store: store, logger: Logger(label: "test")) { messages in
            published.withLock { $0 += messages.map(\.topic) }
        }
        let running = Task { await writer.run { writer.replacePending(with: Self.home(["attic", "cellar"])) } }
        var first = StoreBatch()
        first.rooms["attic"] = Room(id: "attic", name: "Attic", home: "home")
        writer.enqueue(first, then: [Outgoing("homegate/response/room/add", "{}")])
        var second = StoreBatch()
        second.rooms["cellar"] = Room(id: "cellar", name: "Cellar", home: "home")
        writer.enqueue(second, then: [])
        let deadline = ContinuousClock.now + .seconds(10)
        while published.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let written = store.written.withLock { $0 }
        #expect(written.count == 1 && written.first?.replacesAll == true, "one write, of the whole home")
        #expect(Set(written.first?.rooms.map(\.0) ?? []) == ["attic", "cellar"])
        #expect(published.withLock { $0 } == ["homegate/response/room/add"], "answered once it was stored")
        writer.close()
        await running.value
    }

    @Test("a disk that keeps failing holds answers and fires back only so long: devices do not wait on it")
    func patience() async throws {
        let store = FlakyStore(failures: 1_000)
        let published = Mutex<[String]>([])
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), patience: .milliseconds(1500)) { messages in
            published.withLock { $0 += messages.map(\.topic) }
        }
        let running = Task { await writer.run { writer.replacePending(with: Self.home(["attic"])) } }
        var change = StoreBatch()
        change.rooms["attic"] = Room(id: "attic", name: "Attic", home: "home")
        let start = ContinuousClock.now
        writer.enqueue(change, then: [Outgoing("zigbee2mqtt/bulb/set", "{}")])
        try await Task.sleep(for: .milliseconds(500))
        #expect(published.withLock { $0.isEmpty }, "held while the write may still succeed")
        while published.withLock({ $0.isEmpty }), ContinuousClock.now - start < .seconds(10) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(published.withLock { $0 } == ["zigbee2mqtt/bulb/set"])
        writer.close()
        await running.value
    }

    @Test("values wait up to a second to share a transaction; an answer does not wait for them")
    func valuesWait() async throws {
        let store = FlakyStore(failures: 0)
        let published = Mutex<[ContinuousClock.Instant]>([])
        // Values may wait a minute here: an answer that waited for them would not come at all.
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), valuesDelay: .seconds(60)) { messages in
            if !messages.isEmpty { published.withLock { $0.append(ContinuousClock.now) } }
        }
        let running = Task { await writer.run {} }
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

    static func answer(_ transaction: Int) -> Outgoing {
        var answer = Outgoing("homegate/response/room/add", #"{"data":{"id":"attic"},"status":"ok","transaction":\#(transaction)}"#, qos: 1)
        answer.isAnswer = true
        return answer
    }

    @Test("an answer to a change that cannot be stored goes out at once as an error of kind storage; the change is kept and stored later")
    func unstoredAnswers() async throws {
        let store = FlakyStore(failures: 2)
        let published = Mutex<[Outgoing]>([])
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), patience: .seconds(60)) { messages in
            published.withLock { $0 += messages }
        }
        let running = Task { await writer.run { writer.replacePending(with: Self.home(["attic"])) } }
        var change = StoreBatch()
        change.rooms["attic"] = Room(id: "attic", name: "Attic", home: "home")
        writer.enqueue(change, then: [Self.answer(7)])
        let deadline = ContinuousClock.now + .seconds(5)
        while published.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let answer = try JSONValue(parsing: try #require(published.withLock { $0.first }).payload)
        #expect(answer["status"] == "error" && answer["kind"] == "storage" && answer["transaction"] == 7, "\(answer)")
        #expect(answer["error"]?.stringValue?.contains("could not be stored (") == true)
        #expect(store.written.withLock { $0.isEmpty }, "answered before any write succeeded")
        while store.written.withLock({ $0.isEmpty }), ContinuousClock.now < deadline + .seconds(5) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(store.written.withLock { $0.first?.rooms.contains("attic") } == true, "kept and stored once the disk allowed")
        #expect(published.withLock { $0.count } == 1, "answered once")
        writer.close()
        await running.value
    }

    @Test("stopping while the disk keeps failing: a few more tries, then the log names what is lost")
    func lostAtShutdown() async throws {
        let store = FlakyStore(failures: 1_000)
        let log = CapturedLog()
        let writer = StoreWriter(store: store, logger: log.logger, patience: .milliseconds(1500)) { _ in }
        let running = Task { await writer.run { writer.replacePending(with: Self.home(["attic", "cellar"])) } }
        var change = StoreBatch()
        change.rooms["attic"] = Room(id: "attic", name: "Attic", home: "home")
        writer.enqueue(change, then: [Self.answer(1)])
        writer.close()
        await running.value
        #expect(log.text.contains("stopping with changes that could not be stored; they are lost: the whole home; rooms attic, cellar"), "\(log.text)")
    }
}
