import Foundation
import GatewayTesting
import HomeModel
import JSON
import Logging
import Persistence
import Synchronization
import Testing

@testable import Gateway
@testable import GatewayCore

/// A store that fails its first writes, as a full disk would, and keeps what it was given after.
final class FlakyStore: HomeStore {
    let failuresLeft: Mutex<Int>
    let written = Mutex<[StoreBatch]>([])
    let attempts = Mutex(0)
    init(failures: Int) { failuresLeft = Mutex(failures) }
    func load() throws(PersistenceError) -> StoredHome? { nil }
    func write(_ batch: StoreBatch) async throws(PersistenceError) {
        attempts.withLock { $0 += 1 }
        let fail = failuresLeft.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if fail { throw .failed(path: "flaky", operation: "writing", reason: "disk full") }
        written.withLock { $0.append(batch) }
    }
}

/// Waits for something the writer's own task does after a step of the clock: at most 20 s of real
/// time, since in a parallel run of the whole suite that task can wait seconds for a thread.
func eventually(_ what: Comment, _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
    #expect(condition(), what)
}

@Suite("The store writer: in order, off the message path, nothing dropped when a write fails (on a manual clock)")
struct StoreWriterTests {
    /// The owner's whole home, as the runtime would hand it over after a failed write.
    static func home(_ rooms: [String]) -> StoreBatch {
        var whole = StoreBatch()
        whole.replacesAll = true
        for room in rooms { whole.rooms[room] = Room(id: room, name: room.capitalized, home: "home") }
        return whole
    }

    static func room(_ id: String) -> StoreBatch {
        var batch = StoreBatch()
        batch.rooms[id] = Room(id: id, name: id.capitalized, home: "home")
        return batch
    }

    /// The reply to a command that added a room, as the core holds it until the room is stored.
    static func answer(_ ticket: UInt64) -> CoreEffect {
        .reply(Reply(ticket: Ticket(ticket), result: .removed("attic")))
    }

    static let bulbWrite = CoreEffect.device(.mqtt(topic: "zigbee2mqtt/bulb/set", payload: Array("{}".utf8), retain: false))

    /// What the writer handed back, each effect named: a device write by its topic, a reply as
    /// `reply <ticket>`, with ` unstored: <why>` when the write failed.
    final class Delivered: Sendable {
        let names = Mutex<[String]>([])

        func deliver(_ held: [HeldEffects], unstored: String?) {
            let named = held.flatMap(\.effects).map { effect -> String in
                switch effect {
                case .device(let command): return DeviceSources.message(for: command).topic
                case .reply(let reply): return "reply \(reply.ticket.value)" + (unstored.map { " unstored: \($0)" } ?? "")
                default: return "\(effect)"
                }
            }
            names.withLock { $0 += named }
        }

        var all: [String] { names.withLock { $0 } }
    }

    let clock = ManualClock(Date(timeIntervalSince1970: 1_795_000_000))

    /// Runs the writer until `stop` is called: closes it and moves the clock on a second at a time
    /// (a failing disk is tried again once a second while closing) until `run` has returned.
    /// Counts how often the writer asked for the whole home: it asks after it has decided what a
    /// failed write's messages do, so a count reached is a point after which "held" is an observation.
    final class Running: Sendable {
        final class Flag: Sendable {
            let value = Mutex(false)
            let resyncs = Mutex(0)
        }
        let done = Flag()
        let task: Task<Void, Never>
        let writer: StoreWriter
        let clock: ManualClock

        init(_ writer: StoreWriter, clock: ManualClock, delivered: Delivered = Delivered(), resync: @escaping @Sendable () -> Void) {
            self.writer = writer
            self.clock = clock
            task = Task { [done] in
                await writer.run(
                    resync: {
                        resync()
                        done.resyncs.withLock { $0 += 1 }
                    }, deliver: { delivered.deliver($0, unstored: $1) })
                done.value.withLock { $0 = true }
            }
        }

        /// Failed writes the writer has finished handling.
        var resyncs: Int { done.resyncs.withLock { $0 } }

        func stop() async {
            writer.close()
            for _ in 0..<20 {
                for _ in 0..<10 where !done.value.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
                if done.value.withLock({ $0 }) { break }
                await clock.advance(by: 1, settle: .milliseconds(20))  // the last try does not sleep again
            }
            await task.value
        }
    }

    @Test("after a failed write the whole home is written in its place, a second later; what waited goes out then")
    func retries() async throws {
        let store = FlakyStore(failures: 1)
        let published = Delivered()
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), clock: clock)
        let running = Running(writer, clock: clock, delivered: published) { writer.replacePending(with: Self.home(["attic", "cellar"])) }
        await eventually("the writer's ticker sleeps on the clock") { clock.sleeping == 1 }
        writer.enqueue(Self.room("attic"), then: [Self.bulbWrite], at: clock.now)
        writer.enqueue(Self.room("cellar"), then: [], at: clock.now)
        await eventually("the first write failed") { running.resyncs == 1 }
        #expect(published.all.isEmpty, "held: the write may still succeed")
        await clock.advance(by: 1)
        await eventually("tried again after a second") { store.written.withLock { $0.count } == 1 }
        let written = store.written.withLock { $0 }
        #expect(written.first?.replacesAll == true, "the whole home, not the queued changes")
        #expect(Set(written.first?.rooms.map(\.0) ?? []) == ["attic", "cellar"])
        await eventually("published once it was stored") { published.all == ["zigbee2mqtt/bulb/set"] }
        await running.stop()
    }

    @Test("a disk that keeps failing holds events and device writes back for `patience`, not longer: devices do not wait on it")
    func patience() async throws {
        let store = FlakyStore(failures: 1_000)
        let published = Delivered()
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), clock: clock, patience: .milliseconds(1500))
        let running = Running(writer, clock: clock, delivered: published) { writer.replacePending(with: Self.home(["attic"])) }
        await eventually("the writer's ticker sleeps on the clock") { clock.sleeping == 1 }
        writer.enqueue(Self.room("attic"), then: [Self.bulbWrite], at: clock.now)
        await eventually("the first write failed") { running.resyncs == 1 }
        await clock.advance(by: 1)
        await eventually("the second write failed, a second later") { running.resyncs == 2 }
        #expect(published.all.isEmpty, "held: failing for 1 s, patience is 1.5 s")
        await clock.advance(by: 1)
        await eventually("failing for 2 s: published without waiting any longer") { published.all == ["zigbee2mqtt/bulb/set"] }
        await running.stop()
    }

    @Test("values wait a second to share a transaction; an answer does not wait for them")
    func valuesWait() async throws {
        let store = FlakyStore(failures: 0)
        let published = Delivered()
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), clock: clock)
        let running = Running(writer, clock: clock, delivered: published) {}
        await eventually("the writer's ticker sleeps on the clock") { clock.sleeping == 1 }
        var values = StoreBatch()
        values.values[CharacteristicPath("bulb/lightbulb/brightness")!] = .int(40)
        writer.enqueue(values, then: [], at: clock.now)
        await clock.advance(by: 0.5)
        #expect(store.written.withLock { $0.isEmpty }, "values alone are held back for a second")
        writer.enqueue(Self.room("attic"), then: [Self.answer(1)], at: clock.now)
        await eventually("the answer went out with the room") { published.all == ["reply 1"] }
        #expect(
            store.written.withLock { $0.count } == 1 && store.written.withLock { $0.first?.values.count } == 1,
            "the waiting value went along in the same transaction")
        var more = StoreBatch()
        more.values[CharacteristicPath("bulb/lightbulb/brightness")!] = .int(41)
        writer.enqueue(more, then: [], at: clock.now)
        await clock.advance(by: 1)
        await eventually("values alone are written once their second is up") { store.written.withLock { $0.count } == 2 }
        await running.stop()
    }

    @Test("an answer to a change that cannot be stored goes out at once as an error of kind storage; the change is kept and stored later")
    func unstoredAnswers() async throws {
        let store = FlakyStore(failures: 1)
        let published = Delivered()
        let writer = StoreWriter(store: store, logger: Logger(label: "test"), clock: clock, patience: .seconds(60))
        let running = Running(writer, clock: clock, delivered: published) { writer.replacePending(with: Self.home(["attic"])) }
        await eventually("the writer's ticker sleeps on the clock") { clock.sleeping == 1 }
        writer.enqueue(Self.room("attic"), then: [Self.answer(7)], at: clock.now)
        await eventually("the write failed and the answer went out") { running.resyncs == 1 && !published.all.isEmpty }
        #expect(published.all.count == 1 && published.all[0].hasPrefix("reply 7 unstored: "), "\(published.all)")
        #expect(published.all[0].contains("disk full"), "the reason is the store's")
        #expect(store.written.withLock { $0.isEmpty }, "answered before any write succeeded")
        await clock.advance(by: 1)
        await eventually("kept and stored once the disk allowed") { store.written.withLock { $0.first?.rooms["attic"] } != nil }
        #expect(published.all.count == 1, "answered once")
        await running.stop()
    }

    @Test("stopping while the disk keeps failing: a few more tries, then the log names what is lost")
    func lostAtShutdown() async throws {
        let store = FlakyStore(failures: 1_000)
        let log = CapturedLog()
        let writer = StoreWriter(store: store, logger: log.logger, clock: clock, patience: .milliseconds(1500))
        let running = Running(writer, clock: clock) { writer.replacePending(with: Self.home(["attic", "cellar"])) }
        writer.enqueue(Self.room("attic"), then: [Self.answer(1)], at: clock.now)
        await running.stop()
        #expect(store.attempts.withLock { $0 } >= 2, "tried again before giving up")
        #expect(
            log.text.contains("stopping with changes that could not be stored; they are lost: the whole home; rooms attic, cellar"),
            "\(log.text)")
    }
}
