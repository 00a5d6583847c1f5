public import JSON
import Synchronization

/// What a front end other than MQTT (the HTTP API; later HomeKit) has of the running gateway:
/// the same commands as `<base>/request/<command>`, the same events, and its health.
public final class GatewayAccess: Sendable {
    let runtime: GatewayRuntime
    let pending: PendingAnswers
    /// Every published event, for the live streams.
    public let events: EventHub
    let readiness: @Sendable () async -> JSONValue

    init(runtime: GatewayRuntime, pending: PendingAnswers, events: EventHub, readiness: @escaping @Sendable () async -> JSONValue) {
        self.runtime = runtime
        self.pending = pending
        self.events = events
        self.readiness = readiness
    }

    /// Runs the command called `name` (as in `<base>/request/<name>`) with `body` as its JSON,
    /// and returns its answer: at once for a read of the home, once stored for a change, when the
    /// device reports for a `characteristic/read` (3 s at most).
    public func perform(_ name: String, _ body: JSONValue) async -> LocalAnswer {
        guard let id = pending.reserve() else { return PendingAnswers.stopping(0) }
        await runtime.perform(name, body, id: id)
        return await pending.answer(id)
    }

    /// `request/health`'s answer: `ready`, the broker, the database, the mapping files, the counters.
    public func health() async -> JSONValue { await readiness() }
}

/// Commands from inside the process waiting for their answers. An answer may come before its
/// caller waits for it (a read of the home is answered while it is handled), or after (a change,
/// once stored); either way it is handed over once.
final class PendingAnswers: Sendable {
    private enum Entry {
        case reserved
        case waiting(CheckedContinuation<LocalAnswer, Never>)
        case arrived(LocalAnswer)
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    static func stopping(_ id: UInt64) -> LocalAnswer {
        LocalAnswer(id: id, error: HomeError(.busy, "homegate is stopping"))
    }

    /// An id for a new command, or nil when the gateway is stopping.
    func reserve() -> UInt64? {
        state.withLock { state in
            guard !state.closed else { return nil }
            state.next += 1
            state.entries[state.next] = .reserved
            return state.next
        }
    }

    func answer(_ id: UInt64) async -> LocalAnswer {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> LocalAnswer? in
                switch state.entries[id] {
                case .arrived(let answer)?:
                    state.entries[id] = nil
                    return answer
                case .reserved?:
                    if state.closed { return Self.stopping(id) }
                    state.entries[id] = .waiting(continuation)
                    return nil
                case .waiting?, nil:
                    return Self.stopping(id)
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func deliver(_ answers: [LocalAnswer]) {
        guard !answers.isEmpty else { return }
        let resumable = state.withLock { state in
            answers.compactMap { answer -> (CheckedContinuation<LocalAnswer, Never>, LocalAnswer)? in
                switch state.entries[answer.id] {
                case .waiting(let continuation)?:
                    state.entries[answer.id] = nil
                    return (continuation, answer)
                case .reserved?:
                    state.entries[answer.id] = .arrived(answer)
                    return nil
                case .arrived?, nil:
                    return nil
                }
            }
        }
        for (continuation, answer) in resumable { continuation.resume(returning: answer) }
    }

    /// The gateway has stopped: whoever still waits is told so, and new commands are refused.
    func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.entries = state.entries.filter { if case .arrived = $0.value { true } else { false } } }
            return state.entries.compactMap { id, entry -> (UInt64, CheckedContinuation<LocalAnswer, Never>)? in
                if case .waiting(let continuation) = entry { (id, continuation) } else { nil }
            }
        }
        for (id, continuation) in waiting { continuation.resume(returning: Self.stopping(id)) }
    }
}
