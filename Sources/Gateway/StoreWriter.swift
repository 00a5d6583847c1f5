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
    }

    /// Failed writes in a row and when one was last logged: a full disk is reported, not spammed.
    private let failures = Mutex((count: 0, logged: Date.distantPast))

    private let queue = Mutex(Queue())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let store: any HomeStore
    private let publish: @Sendable ([Outgoing]) -> Void
    private let logger: Logger

    init(store: any HomeStore, logger: Logger, publish: @escaping @Sendable ([Outgoing]) -> Void) {
        self.store = store
        self.logger = logger
        self.publish = publish
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func enqueue(_ batch: StoreBatch, then messages: [Outgoing]) {
        guard !batch.isEmpty || !messages.isEmpty else { return }
        queue.withLock {
            $0.batch.merge(batch)
            $0.messages += messages
        }
        wake.yield()
    }

    /// Writes until `close()`; then writes what is left.
    func run() async {
        for await _ in wakeups { await drain(patient: true) }
        await drain(patient: false)
    }

    func close() { wake.finish() }

    private func take() -> Queue {
        queue.withLock { current in
            defer { current = Queue() }
            return current
        }
    }

    private func drain(patient: Bool) async {
        while true {
            var work = take()
            guard !work.batch.isEmpty || !work.messages.isEmpty else { return }
            if patient, !work.batch.hasStructure, work.messages.isEmpty {
                try? await Task.sleep(for: .seconds(1))
                let more = take()
                work.batch.merge(more.batch)
                work.messages += more.messages
            }
            do {
                try await store.write(work.batch)
                let recovered = failures.withLock { state in
                    defer { state.count = 0 }
                    return state.count
                }
                if recovered > 0 { logger.notice("the home is stored again after \(recovered) failed writes") }
            } catch {
                let (count, shouldLog) = failures.withLock { state -> (Int, Bool) in
                    state.count += 1
                    let due = Date().timeIntervalSince(state.logged) >= 60
                    if due { state.logged = Date() }
                    return (state.count, due)
                }
                if shouldLog { logger.error("cannot store the home; retrying every second", metadata: ["error": "\(error)", "failed_writes": "\(count)"]) }
                queue.withLock { current in
                    var retry = work.batch
                    retry.merge(current.batch)
                    current.batch = retry
                }
                if patient { try? await Task.sleep(for: .seconds(1)) } else { return }
            }
            publish(work.messages)
        }
    }
}
