import Synchronization

/// The advertisement's state and whoever watches it. Written by avahi's poll thread (one writer at a
/// time), read from anywhere.
final class StateBoard: Sendable {
    private struct Shared {
        var state: AdvertisementState = .stopped
        var watchers: [Int: AsyncStream<AdvertisementState>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let shared = Mutex(Shared())

    var state: AdvertisementState { shared.withLock { $0.state } }

    /// Records `state` and tells the watchers, unless nothing changed: a daemon that stays away is
    /// tried again and again, and each try would otherwise say the same thing once more.
    func publish(_ state: AdvertisementState) {
        shared.withLock { shared in
            guard !shared.finished, shared.state != state else { return }
            shared.state = state
            // Yielded under the lock so that watchers see the states in the order they were set.
            for watcher in shared.watchers.values { watcher.yield(state) }
        }
    }

    /// The current state first, then every change; ends after `stop()`.
    func stream() -> AsyncStream<AdvertisementState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AdvertisementState.self, bufferingPolicy: .bufferingNewest(32))
        let id = shared.withLock { shared in
            defer { shared.nextID += 1 }
            return shared.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.shared.withLock { $0.watchers.removeValue(forKey: id) }
        }
        let finished = shared.withLock { shared in
            continuation.yield(shared.state)
            if !shared.finished { shared.watchers[id] = continuation }
            return shared.finished
        }
        if finished { continuation.finish() }
        return stream
    }

    /// Publishes the last state and ends every stream.
    func finish(with state: AdvertisementState) {
        let watchers = shared.withLock { shared in
            shared.state = state
            shared.finished = true
            for watcher in shared.watchers.values { watcher.yield(state) }
            defer { shared.watchers = [:] }
            return shared.watchers
        }
        // Outside the lock: finishing runs onTermination, which takes it.
        for watcher in watchers.values { watcher.finish() }
    }
}
