import ServiceLifecycle

/// State requests for devices that joined, or for every device after a reconnect, go out 50 at a
/// time four times a second. This one waits on real time, not the gateway's clock: it is a rate
/// on the devices' network, not time in the home.
struct RequestPacerService: Service {
    let runtime: HomeGateway.Runtime

    func run() async {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .milliseconds(250))
                await runtime.pace()
            }
        }
    }
}
