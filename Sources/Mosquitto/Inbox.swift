import Synchronization

/// The hand-off from libmosquitto's network thread to one Swift consumer.
///
/// The callback appends under a lock and wakes the consumer only when it is waiting; the
/// consumer takes the whole batch at once. One wake-up per batch instead of one per message
/// is what keeps the Swift path near the cost of the C callback alone.
///
/// What waits is kept in chunks of at most `chunkSize` messages, so a burst never has one array
/// doubled and copied (old and new both alive for a moment) and the consumer can let each chunk go
/// as it is handled.
final class Inbox: Sendable {
    private struct State: ~Copyable {
        /// Oldest first; only the last one grows.
        var chunks: [[MQTTMessage]] = []
        var count = 0
        var waiter: CheckedContinuation<[[MQTTMessage]]?, Never>?
        var finished = false
        var dropped = 0

        mutating func take() -> [[MQTTMessage]] {
            defer { chunks = []; count = 0 }
            return chunks
        }

        /// Drops the oldest `excess` messages.
        mutating func dropOldest(_ excess: Int) {
            var left = min(excess, count)
            count -= left
            dropped += left
            while left > 0, let first = chunks.first {
                if first.count <= left {
                    left -= first.count
                    chunks.removeFirst()
                } else {
                    chunks[0].removeFirst(left)
                    left = 0
                }
            }
        }
    }

    static let chunkSize = 1_000
    private let state = Mutex(State())
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Called on the network thread. Past the limit the oldest messages are dropped and counted.
    func append(_ message: MQTTMessage) {
        let wake: (CheckedContinuation<[[MQTTMessage]]?, Never>, [[MQTTMessage]])? = state.withLock { state in
            if state.finished { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, [[message]])
            }
            // Drop the oldest tenth at once so a consumer that stays behind costs O(1) per message.
            if state.count >= limit { state.dropOldest(max(1, limit / 10)) }
            if let last = state.chunks.indices.last, state.chunks[last].count < Self.chunkSize {
                state.chunks[last].append(message)
            } else {
                state.chunks.append([message])
            }
            state.count += 1
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
    var waitingCount: Int { state.withLock { $0.count } }
    /// Whether a consumer is waiting for the next message (for tests of the hand-off).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Everything waiting, in chunks, oldest first, waiting if nothing is there; nil once finished
    /// and drained, or on cancellation.
    func next() async -> [[MQTTMessage]]? {
        if let ready = takeIfReady() { return ready.isEmpty ? nil : ready }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[[MQTTMessage]]?, Never>) in
                let immediate: [[MQTTMessage]]?? = state.withLock { state in
                    if state.count > 0 { return .some(state.take()) }
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
    private func takeIfReady() -> [[MQTTMessage]]? {
        state.withLock { state in
            if state.count > 0 { return state.take() }
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
        /// What was taken and not yet handed out: `chunks[chunk...]`, the first from `index`.
        var chunks: [[MQTTMessage]] = []
        var chunk = 0
        var index = 0

        public mutating func next() async -> MQTTMessage? {
            while chunk == chunks.count || index == chunks[chunk].count {
                if chunk < chunks.count {
                    chunk += 1
                    index = 0
                    continue
                }
                guard let more = await inbox.next() else { return nil }
                (chunks, chunk, index) = (more, 0, 0)
            }
            defer { index += 1 }
            return chunks[chunk][index]
        }

        /// Everything that has arrived, in chunks of at most a thousand messages, oldest first, at
        /// least one message in all; nil when the stream has ended.
        public mutating func nextChunks() async -> [[MQTTMessage]]? {
            var left: [[MQTTMessage]] = []
            if chunk < chunks.count {
                left = [Array(chunks[chunk][index...])] + chunks[(chunk + 1)...]
                left.removeAll(where: \.isEmpty)
            }
            (chunks, chunk, index) = ([], 0, 0)
            if !left.isEmpty { return left }
            return await inbox.next()
        }

        /// Everything that has arrived, at least one message; nil when the stream has ended.
        public mutating func nextBatch() async -> [MQTTMessage]? {
            guard let chunks = await nextChunks() else { return nil }
            return chunks.count == 1 ? chunks[0] : Array(chunks.joined())
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: inbox) }
}
