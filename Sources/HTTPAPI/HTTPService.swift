public import GatewayCore
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
public import Logging
import NIOCore
import Secrets
public import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP API, its event stream and the web page, as one service of the gateway's group. It
/// stops first: no new requests, the ones under way answered, the streams ended.
public struct HTTPService: Service {
    let application: Application<RouterResponder<APIRequestContext>>
    let access: any GatewayAccess
    let address: HTTPAddress
    let logger: Logger
    /// The port it listens on, once it does (the configured one, or the one given for port 0).
    public let listening: Listening

    /// `metrics`: the registry `/metrics` shows (`MetricsExporter.bootstrap()` gives the process's one).
    /// `homeKit`: the HomeKit bridge's pairing state and actions (`/api/homekit`), nil when it is off;
    /// `matter` the Matter bridge's (`/api/matter`).
    public init(
        access: any GatewayAccess, configuration: GatewayConfiguration.HTTP, address: HTTPAddress,
        metrics: MetricsExporter = MetricsExporter(),
        homeKit: (any HomeKitControl)? = nil, matter: (any MatterControl)? = nil, logger: Logger
    ) {
        self.access = access
        self.address = address
        self.logger = logger
        let files = StaticFiles(configured: configuration.webRoot)
        let responder = APIResponder(
            access: access,
            settings: HTTPSettings(
                token: configuration.token?.reveal, corsOrigin: configuration.corsOrigin, maxBodyBytes: configuration.maxBodyBytes),
            files: files, metrics: metrics, logger: logger, homeKit: homeKit, matter: matter)
        let listening = Listening()
        self.listening = listening
        if files.root == nil {
            logger.warning("no web page: its files are not in \(files.searched.joined(separator: " or ")); set http.web_root")
        }
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)  // Hummingbird's own lines; ours say what happened
        let token = configuration.token?.reveal
        let events = EventFanOut(capacity: access.events.capacity, logger: logger)
        access.events.attach(events)
        application = Application(
            router: APIRouter.make(responder, events: events),
            server: .http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: 16 * 1024))) { request, channel, _ in
                EventSocket.upgrade(request, channel: channel, clients: events.sockets, token: token)
            },
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { [logger, address] channel in
                let port = channel.localAddress?.port ?? address.port
                listening.set(port)
                let shown = HTTPAddress(host: address.host, port: port)
                logger.info("listening on http://\(shown)/ (the web page; the API under /api)")
            },
            logger: quiet)
    }

    public func run() async throws {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Stops taking connections at the stop and waits for the requests under way.
                group.addTask { try await application.run() }
                group.addTask { [access, logger] in
                    try await gracefulShutdown()
                    // Streams never end on their own: end them, so the server can finish.
                    access.events.close()
                    // A browser may hold a connection it has sent nothing on (Chromium opens
                    // them ahead of need); the server would wait for it. Three seconds, then go.
                    try await Task.sleep(for: .seconds(3))
                    logger.notice("closing HTTP connections still open 3 s after the stop")
                    throw CancellationError()
                }
                try await group.next()
                group.cancelAll()
            }
        } catch is CancellationError {
            return
        } catch {
            throw HTTPStartError(address: address, underlying: error)
        }
    }
}

/// The port the server listens on, once it does.
public final class Listening: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Int, Never>])
        case listening(Int)
    }

    private let state = Mutex(State.waiting([]))

    func set(_ port: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int, Never>] in
            defer { state = .listening(port) }
            if case .waiting(let waiters) = state { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }

    /// Waits until the server listens.
    public func port() async -> Int {
        await withCheckedContinuation { continuation in
            let known = state.withLock { state -> Int? in
                switch state {
                case .listening(let port): return port
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return nil
                }
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}

/// The server could not start or failed.
public struct HTTPStartError: Error, CustomStringConvertible {
    let address: HTTPAddress
    let underlying: any Error

    public var description: String {
        if let error = underlying as? IOError, error.errnoCode == EADDRINUSE {
            return "http.listen \(address): the address is in use (another program listens there); set http.listen to another port, or off"
        }
        return "http.listen \(address): \(underlying)"
    }
}
