public import ServiceLifecycle

/// As a swift-service-lifecycle service: advertised while the group runs, withdrawn on graceful
/// shutdown or cancellation. An owner that runs its own service (the HAP server) can instead call
/// `start()` when its port is bound and `stop()` on its way out.
extension ServiceAdvertiser: Service {
    public func run() async throws {
        try start()
        defer { stop() }
        // Returns on graceful shutdown; throws CancellationError when the task is cancelled. Both end here.
        try? await gracefulShutdown()
    }
}
