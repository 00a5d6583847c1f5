import Foundation
import Logging
import Persistence
import Synchronization

/// Writes what the gateway changed, in order, off the message path: batches queue up and merge,
/// one transaction takes everything queued, and the messages that waited for it are published
/// once it is committed. Characteristic values alone wait up to 100 ms to share a transaction.
final class StoreWriter: Sendable {
    private struct Queue {
        var batch = StoreBatch()
        var messages: [Outgoing] = []
    }

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
                try? await Task.sleep(for: .milliseconds(100))
                let more = take()
                work.batch.merge(more.batch)
                work.messages += more.messages
            }
            do {
                try await store.write(work.batch)
            } catch {
                logger.error("cannot store the home; will retry", metadata: ["error": "\(error)"])
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
