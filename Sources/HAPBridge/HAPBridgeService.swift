import Foundation
public import Gateway
import HAP
public import Logging
public import ServiceLifecycle

/// The HomeKit bridge as a peer adapter of the core: one `BridgeUnit` per 149 accessories (HomeKit's
/// limit for one bridge), each with its own port (the configured one, then the next ones), identity,
/// setup code and DNS-SD name. Accessories stay on their bridge when others join; a house that
/// outgrows its bridges gets another while running.
public final class HAPBridgeService: ServiceLifecycle.Service, Sendable {
    let access: GatewayAccess
    let settings: GatewayConfiguration.HAP
    let setupCode: HAPSetupCode?
    let storage: any HAPStateStorage
    let logger: Logger
    /// What the HTTP API reads and does (`HomeKitControl`); each bridge joins it as it is made.
    public let control: HAPBridgeControl
    private let newBridges: AsyncStream<Int>
    private let newBridgesContinuation: AsyncStream<Int>.Continuation

    /// `control`: the one the HTTP API was given; a new one when nobody else needs it.
    public init(
        access: GatewayAccess, settings: GatewayConfiguration.HAP, control: HAPBridgeControl? = nil, logger: Logger
    ) throws(HAPBridgeError) {
        if let code = settings.revealedSetupCode {
            do {
                setupCode = try HAPSetupCode(code)
            } catch {
                // Not the HAP module's message: it quotes the code, and the code is a secret.
                throw .configuration(
                    "hap.setup_code: HomeKit refuses codes that are too easy to guess (all digits alike, 123-45-678, 876-54-321); leave it out for a random one")
            }
        } else {
            setupCode = nil
        }
        storage = GatewayStateStorage(access: access)
        (newBridges, newBridgesContinuation) = AsyncStream.makeStream(of: Int.self)
        self.access = access
        self.settings = settings
        self.control = control ?? HAPBridgeControl(settings: settings)
        self.logger = logger
    }

    /// Bridge `index`: the first has the configured name, port and setup code; the others the name
    /// with their number, the next ports (or any free one), and setup codes of their own.
    func unit(_ index: Int, registry: HAPIdentifierRegistry) -> BridgeUnit {
        var configuration = HAPServerConfiguration(
            host: settings.bind, port: settings.port == 0 ? 0 : settings.port + index, model: "homegate", category: .bridge)
        configuration.setupCode = index == 0 ? setupCode : nil
        let control = control
        let unit = BridgeUnit(
            access: access, registry: registry, index: index, configuration: configuration,
            name: HAPStateKeys.name(settings.name, bridge: index),
            store: HAPStoredPairingStore(storage: storage, key: HAPStateKeys.pairing(bridge: index)), logger: logger
        ) { control.advertisement(index, $0) }
        control.add(unit, access: access)
        return unit
    }

    public func run() async throws {
        let registry = try await HAPIdentifierRegistry(
            storage: HAPIdentifierStorage(storage: storage), logger: logger,
            selection: BridgedSelection(include: settings.include, exclude: settings.exclude), newBridges: newBridgesContinuation)
        let count = await registry.bridgeCount(await access.snapshot())
        let units = (0..<count).map { self.unit($0, registry: registry) }
        let continuation = newBridgesContinuation
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, unit) in units.enumerated() { group.addTask { try await self.run(unit, index: index) } }
                var running = count
                // Ends on graceful shutdown, when the continuation is finished.
                for await index in newBridges where index >= running {
                    let added = self.unit(index, registry: registry)
                    running = index + 1
                    group.addTask { try await self.run(added, index: index) }
                }
                try await group.waitForAll()
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
    }

    /// The first bridge failing (its port taken) stops homegate, as the HTTP API's does; a further
    /// bridge failing is logged and leaves the others serving.
    private func run(_ unit: BridgeUnit, index: Int) async throws {
        guard index > 0 else {
            do {
                return try await unit.run()
            } catch {
                newBridgesContinuation.finish()  // so that the group stops waiting for new bridges and throws
                throw error
            }
        }
        do {
            try await unit.run()
        } catch {
            logger.error("HomeKit bridge \(index + 1) stopped: \(error)")
        }
    }
}
