import Synchronization

/// The hand-off from libmosquitto's network thread to one Swift consumer.
///
/// The callback appends under a lock and wakes the consumer only when it is waiting; the
/// consumer takes the whole batch at once. One wake-up per batch instead of one per message
/// is what keeps the Swift path near the cost of the C callback alone.
final class Inbox: Sendable {
    private struct State: ~Copyable {
        var batch: [MQTTMessage] = []
        var waiter: CheckedContinuation<[MQTTMessage]?, Never>?
        var finished = false
        var dropped = 0
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Called on the network thread. Past the limit the oldest messages are dropped and counted.
    func append(_ message: MQTTMessage) {
        let wake: (CheckedContinuation<[MQTTMessage]?, Never>, [MQTTMessage])? = state.withLock { state in
            if state.finished { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, [message])
            }
            if state.batch.count >= limit {
                // Drop the oldest tenth at once so a consumer that stays behind costs O(1) per message.
                let excess = max(1, limit / 10)
                state.batch.removeFirst(excess)
                state.dropped += excess
            }
            state.batch.append(message)
            return nil
        }
        if let (waiter, batch) = wake { waiter.resume(returning: batch) }
    }

    /// Ends the sequence once what is buffered has been taken.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    var droppedCount: Int { state.withLock { $0.dropped } }

    /// The next batch, waiting if none is there; nil once finished and drained, or on cancellation.
    func next() async -> [MQTTMessage]? {
        if let ready = takeIfReady() { return ready.isEmpty ? nil : ready }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[MQTTMessage]?, Never>) in
                let immediate: [MQTTMessage]?? = state.withLock { state in
                    if !state.batch.isEmpty {
                        defer { state.batch = [] }
                        return .some(state.batch)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if case .some(let batch) = immediate { continuation.resume(returning: batch) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// A non-empty batch, an empty array when finished and drained, nil when the consumer must wait.
    private func takeIfReady() -> [MQTTMessage]? {
        state.withLock { state in
            if !state.batch.isEmpty {
                defer { state.batch = [] }
                return state.batch
            }
            return state.finished ? [] : nil
        }
    }
}

/// Received messages, one at a time, delivered from batches. Iterate it from one task only.
public struct MQTTMessages: AsyncSequence, Sendable {
    public typealias Element = MQTTMessage
    let inbox: Inbox

    public struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: Inbox
        var batch: [MQTTMessage] = []
        var index = 0

        public mutating func next() async -> MQTTMessage? {
            if index == batch.count {
                guard let more = await inbox.next() else { return nil }
                batch = more
                index = 0
            }
            defer { index += 1 }
            return batch[index]
        }

        /// Everything that has arrived, at least one message; nil when the stream has ended.
        public mutating func nextBatch() async -> [MQTTMessage]? {
            if index < batch.count {
                defer { batch = []; index = 0 }
                return Array(batch[index...])
            }
            return await inbox.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: inbox) }
}
