import Foundation
import Logging
import Persistence
import Synchronization

/// Writes what the gateway changed, in order, off the message path: batches queue up and merge,
/// one transaction takes everything queued, and the messages that waited for it are published
/// once it is committed. Characteristic values alone wait up to a second to share a transaction:
/// under load that is one short transaction a second instead of many that compete with messages.
final class StoreWriter: Sendable {
    private struct Queue {
        var batch = StoreBatch()
        var messages: [Outgoing] = []
        /// Values alone have waited their second.
        var valuesDue = false
        var closed = false

        /// Whether to write now: anything but values, or values that have waited, or the end.
        var ready: Bool {
            !(batch.isEmpty && messages.isEmpty) && (batch.hasStructure || !messages.isEmpty || valuesDue || closed)
        }
    }

    /// Failed writes in a row, since when, and when one was last logged: a full disk is reported, not spammed.
    private let failures = Mutex((count: 0, since: ContinuousClock.now, logged: Date.distantPast))

    private let queue = Mutex(Queue())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let store: any HomeStore
    private let publish: @Sendable ([Outgoing]) -> Void
    private let logger: Logger
    /// How long values alone may wait for company.
    private let valuesDelay: Duration
    /// How long answers and fires wait for a failing disk before they go out anyway.
    private let patience: Duration

    init(store: any HomeStore, logger: Logger, valuesDelay: Duration = .seconds(1), patience: Duration = .seconds(5),
         publish: @escaping @Sendable ([Outgoing]) -> Void) {
        self.store = store
        self.valuesDelay = valuesDelay
        self.patience = patience
        self.logger = logger
        self.publish = publish
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a batch; the writer is woken only when it has something that must not wait.
    func enqueue(_ batch: StoreBatch, then messages: [Outgoing]) {
        guard !batch.isEmpty || !messages.isEmpty else { return }
        let ready = queue.withLock { state in
            state.batch.merge(batch)
            state.messages += messages
            return state.ready
        }
        if ready { wake.yield() }
    }

    /// Puts a whole home in place of what is queued (messages stay queued): after a failed write the
    /// queued changes may not apply in order any more, but the owner's whole state always does.
    func replacePending(with whole: StoreBatch) {
        queue.withLock { $0.batch = whole }
        wake.yield()
    }

    /// Writes until `close()`; then writes what is left. A ticker lets waiting values go. After a
    /// failed write, `resync` is asked to put the whole home in the queue.
    func run(resync: @escaping @Sendable () async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                while !queue.withLock({ $0.closed }) {
                    try? await Task.sleep(for: valuesDelay)
                    let due = queue.withLock { state in
                        state.valuesDue = !state.batch.isEmpty
                        return state.valuesDue
                    }
                    if due { wake.yield() }
                }
            }
            for await _ in wakeups { await drain(resync) }
            await drain(resync)
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

    /// Writes what is ready; its messages go out once it is stored. A failed write is retried
    /// every second from the whole home; its messages wait for that, but not longer than
    /// `patience`: devices must not stop because a disk did.
    private func drain(_ resync: @Sendable () async -> Void) async {
        while let work = take() {
            do {
                try await store.write(work.batch)
                let recovered = failures.withLock { state in
                    defer { state.count = 0 }
                    return state.count
                }
                if recovered > 0 { logger.notice("the home is stored again after \(recovered) failed writes") }
                publish(work.messages)
            } catch {
                let (count, failing, shouldLog) = failures.withLock { state -> (Int, Duration, Bool) in
                    if state.count == 0 { state.since = .now }
                    state.count += 1
                    let due = Date().timeIntervalSince(state.logged) >= 60
                    if due { state.logged = Date() }
                    return (state.count, .now - state.since, due)
                }
                if shouldLog { logger.error("cannot store the home; retrying every second", metadata: ["error": "\(error)", "failed_writes": "\(count)"]) }
                let closed = queue.withLock { $0.closed }
                if failing >= patience || closed {
                    if !work.messages.isEmpty { logger.error("publishing \(work.messages.count) messages whose changes are not stored") }
                    publish(work.messages)
                } else {
                    queue.withLock { $0.messages = work.messages + $0.messages }
                }
                await resync()
                if closed { return }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
