import Foundation
import Logging
import Metrics
import Persistence
import Synchronization

/// What a step held until its store changes are committed, with the step's time.
struct HeldEffects: Sendable {
    var effects: [CoreEffect]
    var time: Date

    /// The replies among them, and the rest.
    var split: (replies: HeldEffects, others: HeldEffects) {
        (HeldEffects(effects: effects.filter(\.isReply), time: time), HeldEffects(effects: effects.filter { !$0.isReply }, time: time))
    }
}

/// Writes what the gateway changed, in order, off the message path: batches queue up and merge,
/// one transaction takes everything queued, and the effects that waited for it are handed back to
/// the runtime once it is committed, with whether it was. Characteristic values alone wait up to a second to share a transaction:
/// under load that is one short transaction a second instead of many that compete with messages.
final class StoreWriter: Sendable {
    private struct Queue {
        var batch = StoreBatch()
        var held: [HeldEffects] = []
        /// Values alone have waited their second.
        var valuesDue = false
        var closed = false

        /// Whether to write now: anything but values, or values that have waited, or the end.
        var ready: Bool {
            let waiting = !held.isEmpty
            return !(batch.isEmpty && !waiting) && (batch.hasStructure || waiting || valuesDue || closed)
        }
    }

    /// Failed writes in a row, since when, the last one and why, and when one was last logged: a
    /// full disk is reported, not spammed, and not tried more than once a second.
    private struct Failures {
        var count = 0
        /// Times on the clock's `uptime`.
        var since = Duration.zero
        var last = Duration.zero
        var reason = ""
        var logged: Duration?
    }

    private let failures = Mutex(Failures())

    private let queue = Mutex(Queue())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let store: any HomeStore
    private let logger: Logger
    /// How long values alone may wait for company.
    private let valuesDelay: Duration
    /// How long answers and fires wait for a failing disk before they go out anyway.
    private let patience: Duration
    private let clock: any GatewayClock

    init(
        store: any HomeStore, logger: Logger, clock: any GatewayClock = SystemClock(), valuesDelay: Duration = .seconds(1),
        patience: Duration = .seconds(5)
    ) {
        self.store = store
        self.clock = clock
        self.valuesDelay = valuesDelay
        self.patience = patience
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a batch, and what waits until it is stored; the writer is woken only when it has
    /// something that must not wait.
    func enqueue(_ batch: StoreBatch, then effects: [CoreEffect], at time: Date) {
        guard !batch.isEmpty || !effects.isEmpty else { return }
        let ready = queue.withLock { state in
            state.batch.merge(batch)
            if !effects.isEmpty { state.held.append(HeldEffects(effects: effects, time: time)) }
            return state.ready
        }
        if ready { wake.yield() }
    }

    /// Puts a whole home in place of what is queued (what waits for it stays queued): after a failed write the
    /// queued changes may not apply in order any more, but the owner's whole state always does.
    func replacePending(with whole: StoreBatch) {
        queue.withLock { $0.batch = whole }
        wake.yield()
    }

    /// Hands what waited for a write to the runtime: `unstored` says why the write failed, if it did.
    typealias Deliver = @Sendable (_ held: [HeldEffects], _ unstored: String?) async -> Void

    /// Writes until `close()`; then writes what is left. A ticker lets waiting values go. After a
    /// failed write, `resync` is asked to put the whole home in the queue.
    func run(resync: @escaping @Sendable () async -> Void, deliver: @escaping Deliver) async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                // Values go every `valuesDelay`; a failed write is tried again every second.
                let step = min(valuesDelay, .seconds(1))
                var sinceValues = Duration.zero
                // Until cancelled, once the last write is done.
                while (try? await clock.sleep(for: step)) != nil {
                    sinceValues += step
                    let valuesDue = sinceValues >= valuesDelay
                    if valuesDue { sinceValues = .zero }
                    let retrying = failing != nil
                    let due = queue.withLock { state in
                        if valuesDue { state.valuesDue = !state.batch.isEmpty }
                        return !state.batch.isEmpty && (state.valuesDue || retrying)
                    }
                    if due { wake.yield() }
                }
            }
            for await _ in wakeups { await drain(resync, deliver) }
            await drain(resync, deliver)
            group.cancelAll()  // the ticker need not finish its sleep
        }
    }

    func close() {
        queue.withLock { $0.closed = true }
        wake.finish()
    }

    private func take() -> Queue? {
        queue.withLock { current in
            guard current.ready else { return nil }
            defer { current = Queue(closed: current.closed) }
            return current
        }
    }

    /// Writes what is ready; what waited for it goes out once it is stored. A failed write is
    /// retried every second from the whole home. Replies waiting for it go out at once, saying the
    /// change is not stored (an `ok` means stored); events and fires wait for the retry, but not
    /// longer than `patience`: devices must not stop because a disk did.
    private func drain(_ resync: @Sendable () async -> Void, _ deliver: Deliver) async {
        // A device list is written out to JSON here (megabytes of small allocations with thousands
        // of devices); once the batches are gone, their memory goes back to the system.
        var wroteLists = false
        defer { if wroteLists { returnFreedMemory() } }
        while let work = take() {
            wroteLists = wroteLists || !work.batch.inventories.isEmpty
            let (replies, others) = Self.split(work.held)
            if let reason = recentFailure(), !queue.withLock({ $0.closed }) {
                // The disk failed under a second ago: answer now, and leave the next try to the ticker.
                await deliver(replies, reason)
                let failing = failing?.duration ?? .zero
                if failing >= patience { await deliver(others, nil) }
                queue.withLock { pending in
                    var batch = work.batch
                    batch.merge(pending.batch)
                    pending.batch = batch
                    if failing < patience { pending.held = others + pending.held }
                }
                return
            }
            do {
                let started = ContinuousClock.now
                try await store.write(work.batch)
                Self.writeTime.record(duration: ContinuousClock.now - started)
                noteSuccess()
                await deliver(work.held, nil)
            } catch {
                let failing = noteFailure(error)
                let closed = queue.withLock { $0.closed }
                await deliver(replies, "\(error)")
                if failing >= patience || closed {
                    if others.contains(where: { !$0.effects.isEmpty }) {
                        logger.error("publishing events and device writes whose changes are not stored yet")
                    }
                    await deliver(others, nil)
                } else {
                    queue.withLock { $0.held = others + $0.held }
                }
                await resync()
                if closed { return await lastTries(deliver) }
            }
        }
    }

    /// The replies of every step held, and the rest, each list in order.
    private static func split(_ held: [HeldEffects]) -> (replies: [HeldEffects], others: [HeldEffects]) {
        let parts = held.map(\.split)
        return (parts.map(\.replies).filter { !$0.effects.isEmpty }, parts.map(\.others).filter { !$0.effects.isEmpty })
    }

    /// Why the last write failed, if that was less than a second ago.
    private func recentFailure() -> String? {
        let now = clock.uptime
        return failures.withLock { $0.count > 0 && now - $0.last < .seconds(1) ? $0.reason : nil }
    }

    /// Stopping with a failing disk: a few more tries, then the log names what is lost.
    private func lastTries(_ deliver: Deliver) async {
        let deadline = clock.uptime + patience
        while let work = take() {
            do {
                try await store.write(work.batch)
                noteSuccess()
                await deliver(work.held, nil)
            } catch {
                guard clock.uptime < deadline else {
                    logger.critical(
                        "stopping with changes that could not be stored; they are lost: \(work.batch.summary)",
                        metadata: ["error": "\(error)"])
                    let (replies, others) = Self.split(work.held)
                    await deliver(replies, "\(error)")
                    return await deliver(others, nil)
                }
                queue.withLock { pending in
                    var batch = work.batch
                    batch.merge(pending.batch)
                    pending.batch = batch
                    pending.held = work.held + pending.held
                }
                try? await clock.sleep(for: .seconds(1))
            }
        }
    }

    /// Each transaction's time, and the failed ones (for /metrics; nothing is recorded without a metrics backend).
    private static let writeTime = Metrics.Timer(label: "homegate_store_write_seconds", preferredDisplayUnit: .seconds)
    private static let writeFailures = Counter(label: "homegate_store_write_failures_total")

    private func noteSuccess() {
        let recovered = failures.withLock { state in
            defer { state.count = 0 }
            return state.count
        }
        if recovered > 0 { logger.notice("the home is stored again after \(recovered) failed writes") }
    }

    /// Counts a failed write, logs it at most once a minute; how long writes have been failing.
    private func noteFailure(_ error: any Error) -> Duration {
        Self.writeFailures.increment()
        let now = clock.uptime
        let (count, failing, shouldLog) = failures.withLock { state -> (Int, Duration, Bool) in
            if state.count == 0 { state.since = now }
            state.count += 1
            state.last = now
            state.reason = "\(error)"
            let due = state.logged.map { now - $0 >= .seconds(60) } ?? true
            if due { state.logged = now }
            return (state.count, now - state.since, due)
        }
        if shouldLog {
            logger.error(
                """
                cannot store the home; changes are kept in memory and retried every second, and requests that change the home \
                are answered with errors of kind storage until a write succeeds
                """, metadata: ["error": "\(error)", "failed_writes": "\(count)"])
        }
        return failing
    }

    /// Whether writes are failing now, how many in a row, for how long, and why: for health.
    var failing: (count: Int, duration: Duration, reason: String)? {
        let now = clock.uptime
        return failures.withLock { $0.count > 0 ? ($0.count, now - $0.since, $0.reason) : nil }
    }
}
