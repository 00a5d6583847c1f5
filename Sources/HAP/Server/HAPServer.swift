public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
public import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The HAP accessory server (IP transport) as a `Service`: listens, pairs controllers, serves
/// the provider's accessories and sends their events.
public final class HAPServer: Service, Sendable {
    public let configuration: HAPServerConfiguration
    let provider: any HAPAccessoryProvider
    let store: any HAPPairingStore
    let logger: Logger
    let registry: HAPConnectionRegistry
    let database = HAPDatabase()
    let pairSetup: PairSetup
    private let jobs: AsyncStream<HAPJob>
    private let jobContinuation: AsyncStream<HAPJob>.Continuation
    private let boundPort = Mutex<Int?>(nil)

    public init(
        configuration: HAPServerConfiguration, provider: any HAPAccessoryProvider, store: any HAPPairingStore,
        logger: Logger = Logger(label: "hap")
    ) {
        self.configuration = configuration
        self.provider = provider
        self.store = store
        self.logger = logger
        let registry = HAPConnectionRegistry(verifiedLimit: configuration.verifiedConnectionLimit, logger: logger)
        self.registry = registry
        self.pairSetup = PairSetup(store: store, logger: logger) { registry.contains($0) }
        (jobs, jobContinuation) = AsyncStream.makeStream(of: HAPJob.self)
    }

    /// The port the server listens on once `run()` has bound it.
    public func listeningPort() -> Int? {
        boundPort.withLock { $0 }
    }

    public func run() async throws {
        _ = try await identity()
        database.replace(with: await provider.accessories())
        let router = HAPRouter(
            provider: provider, store: store, pairSetup: pairSetup, database: database, registry: registry,
            configuration: configuration, logger: logger)
        let channel = try await bind()
        let continuation = jobContinuation
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await job in jobs {
                    group.addTask {
                        job.complete(await router.respond(to: job.request, on: job.state))
                    }
                }
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
        logger.info("HAP server stopping")
        registry.closeAll()
        try? await channel.close()
    }

    private func bind() async throws -> any Channel {
        let registry = registry
        let configuration = configuration
        let logger = logger
        let continuation = jobContinuation
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = HAPConnectionHandler(
                        id: registry.makeID(), registry: registry, configuration: configuration, logger: logger
                    ) { job in
                        if case .terminated = continuation.yield(job) { return false }
                        return true
                    }
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
                    // Taken out once the connection pair-verifies (HAPConnectionHandler.finish).
                    try pipeline.addHandler(
                        IdleStateHandler(allTimeout: configuration.unverifiedIdleTimeout.timeAmount), name: HAPServer.idleHandlerName)
                    try pipeline.addHandler(handler)
                }
            }
        let channel = try await Self.listen(bootstrap, host: configuration.host, port: configuration.port, logger: logger)
        let port = channel.localAddress?.port
        logger.info(
            "HAP server listening", metadata: ["address": "\(channel.localAddress?.ipAddress ?? "?")", "port": "\(port ?? 0)"])
        // Before the port is known to others (the advertisement waits for it), so that they speak after.
        if let port { configuration.onListening?(port) }
        boundPort.withLock { $0 = port }
        return channel
    }

    static let idleHandlerName = "hap-idle"

    /// Binds `host`; without one, `::` (NIO turns IPv6-only off, so IPv4 peers connect too, as
    /// v4-mapped addresses), and `0.0.0.0` where the host has no IPv6. A port in use is not a
    /// reason to try IPv4 alone: it is in use there too.
    static func listen(_ bootstrap: ServerBootstrap, host: String?, port: Int, logger: Logger) async throws -> any Channel {
        do {
            return try await bootstrap.bind(host: host ?? "::", port: port).get()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw HAPError.portInUse(port: port)
        } catch {
            guard host == nil else { throw HAPError.listen("\(host ?? "::"):\(port): \(error)") }
            logger.info("no IPv6 on this host, the HAP server listens on IPv4 only", metadata: ["reason": "\(error)"])
        }
        do {
            return try await bootstrap.bind(host: "0.0.0.0", port: port).get()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw HAPError.portInUse(port: port)
        } catch {
            throw HAPError.listen("0.0.0.0:\(port): \(error)")
        }
    }

    /// Tells the subscribed controllers about changed values; `excluding` is the connection whose
    /// write caused them (its controller already knows).
    public func notify(_ changes: [HAPCharacteristicChange], excluding: HAPConnectionID? = nil) {
        guard !changes.isEmpty else { return }
        let immediate = Set(changes.map(\.id).filter(database.isImmediate))
        registry.deliver(changes, immediate: immediate, excluding: excluding)
    }

    /// The number of open controller connections.
    public var connectionCount: Int { registry.count }
}
