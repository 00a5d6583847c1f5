import ServiceLifecycle

/// Runs `attempt` until it returns, trying it again after each failure once a backoff has passed
/// (1 s, doubling, `longest` at the most), until the task is cancelled or homegate shuts down
/// gracefully: a bridge that cannot serve (its port taken) never stops the house. `failed` hears
/// of each failure, with its `reason` and whether that reason is new, so that the log says it
/// once per change rather than at every try.
public func retrying(
    longest: Duration, clock: any GatewayClock = SystemClock(), reason: (any Error) -> String = { "\($0)" },
    _ attempt: () async throws -> Void, failed: (_ reason: String, _ isNew: Bool) -> Void
) async {
    var delay: Duration = .seconds(1)
    var reported: String?
    while !Task.isCancelled, !Task.isShuttingDownGracefully {
        do {
            try await attempt()
            return
        } catch {
            let why = reason(error)
            failed(why, why != reported)
            reported = why
        }
        do {
            let wait = delay
            try await cancelWhenGracefulShutdown { try await clock.sleep(for: wait) }
        } catch {
            return
        }
        delay = min(delay * 2, longest)
    }
}
