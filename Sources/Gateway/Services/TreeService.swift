import ServiceLifecycle

/// Publishes a large house's tree off the runtime (`TreePublisher`) until the gateway stops.
struct TreeService: Service {
    let publisher: TreePublisher

    func run() async {
        await withGracefulShutdownHandler {
            await publisher.run()
        } onGracefulShutdown: { [publisher] in
            publisher.close()
        }
    }
}
