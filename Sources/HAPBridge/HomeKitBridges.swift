import Foundation
public import GatewayCore
import HAP
public import Logging
public import ServiceLifecycle

/// Every HomeKit bridge of the house, the peer adapter of the core: one `HomeKitBridge` per 149
/// accessories (HomeKit's limit for one bridge), each with its own port (the configured one, then
/// the next ones), identity, setup code and DNS-SD name. Accessories stay on their bridge when others join; a house that
/// outgrows its bridges gets another while running.
public final class HomeKitBridges: ServiceLifecycle.Service, Sendable {
    let access: any GatewayAccess
    let settings: GatewayConfiguration.HAP
    let setupCode: HAPSetupCode?
    let storage: any BridgeStateStorage
    let logger: Logger
    /// What the HTTP API reads and does (`HomeKitControl`); each bridge joins it as it is made.
    public let control: BridgeControl
    private let newBridges: AsyncStream<Int>
    private let newBridgesContinuation: AsyncStream<Int>.Continuation

    /// `control`: the one the HTTP API was given; a new one when nobody else needs it.
    public init(
        access: any GatewayAccess, settings: GatewayConfiguration.HAP, control: BridgeControl? = nil, logger: Logger
    ) throws(BridgeError) {
        if let code = settings.revealedSetupCode {
            do {
                setupCode = try HAPSetupCode(code)
            } catch {
                // Not the HAP module's message: it quotes the code, and the code is a secret.
                throw .configuration(
                    "hap.setup_code: HomeKit refuses codes that are too easy to guess (all digits alike, 123-45-678, 876-54-321); leave it out for a random one"
                )
            }
        } else {
            setupCode = nil
        }
        storage = GatewayStateStorage(access: access)
        (newBridges, newBridgesContinuation) = AsyncStream.makeStream(of: Int.self)
        self.access = access
        self.settings = settings
        self.control = control ?? BridgeControl(settings: settings)
        self.logger = logger
    }

    /// Bridge `index`: the first has the configured name, port and setup code; the others the name
    /// with their number, the next ports (or any free one), and setup codes of their own.
    func bridge(_ index: Int, registry: IdentifierRegistry) -> HomeKitBridge {
        var configuration = HAPServerConfiguration(
            host: settings.bind, port: settings.port == 0 ? 0 : settings.port + index, model: "homegate", category: .bridge)
        configuration.setupCode = index == 0 ? setupCode : nil
        let control = control
        configuration.onListening = { port in control.serving(index, port: port) }
        let bridge = HomeKitBridge(
            access: access, registry: registry, index: index, configuration: configuration,
            name: BridgeStateKeys.name(settings.name, bridge: index),
            store: StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: index)), logger: logger
        ) { control.advertisement(index, $0) }
        control.add(bridge, access: access)
        return bridge
    }

    public func run() async throws {
        let registry = try await IdentifierRegistry(
            storage: IdentifierStorage(storage: storage), logger: logger,
            selection: BridgedSelection(include: settings.include, exclude: settings.exclude), newBridges: newBridgesContinuation)
        let count = await registry.bridgeCount(await access.snapshot())
        let bridges = (0..<count).map { self.bridge($0, registry: registry) }
        let continuation = newBridgesContinuation
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for (index, bridge) in bridges.enumerated() { group.addTask { await self.run(bridge, index: index) } }
                var running = count
                // Ends on graceful shutdown, when the continuation is finished.
                for await index in newBridges where index >= running {
                    let added = self.bridge(index, registry: registry)
                    running = index + 1
                    group.addTask { await self.run(added, index: index) }
                }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
    }

    /// The longest wait between two tries of a bridge that cannot listen (1 s, doubling).
    static let longestRetry: Duration = .seconds(60)

    /// A bridge that cannot listen (its port taken: Homebridge's default is 51826 too) never stops
    /// homegate: the house runs on, the bridge is tried again with a backoff, and the log (once per
    /// change of reason), health and `doctor` say why, naming the port and its holder.
    private func run(_ bridge: HomeKitBridge, index: Int) async {
        await retrying(longest: Self.longestRetry, reason: Self.reason) {
            try await bridge.run()
        } failed: { reason, isNew in
            if isNew {
                logger.error(
                    "HomeKit bridge \(index + 1) cannot serve: \(reason); homegate runs on without it and tries again, every \(Self.longestRetry.components.seconds) s at the most"
                )
            }
            control.cannotServe(index, reason: reason)
        }
    }

    /// Why a bridge does not serve, for a person: the port and who holds it where that can be told.
    static func reason(_ error: any Error) -> String {
        guard case HAPError.portInUse(let port) = error else { return "\(error)" }
        let holder = PortHolder.describe(port: port) ?? "another program"
        return "port \(port) is in use by \(holder) (hap.port: give the bridge another port, or stop the other program)"
    }
}
