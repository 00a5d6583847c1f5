import ServiceLifecycle

/// Timers, held-for deadlines and sun events: the runtime is ticked when the next one is due,
/// and at least four times a second.
struct TickerService: Service {
    let runtime: HomeGateway.Runtime
    let clock: any GatewayClock

    func run() async {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await clock.sleep(for: await runtime.untilNextDue(limit: .milliseconds(250)))
                await runtime.tick()
            }
        }
    }
}
