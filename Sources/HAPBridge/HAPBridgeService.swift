import Foundation
public import Gateway
import HAP
import HomeModel
public import Logging
public import ServiceLifecycle

/// The HomeKit bridge as a peer adapter of the core: the HAP server over `HomeKitBridge`, the core's
/// value changes sent to subscribed controllers, `c#` bumped when the accessory set changes, and
/// the `_hap._tcp` advertisement kept in step (`BridgeAdvertisement`).
public final class HAPBridgeService: ServiceLifecycle.Service, Sendable {
    let access: GatewayAccess
    let server: HAPServer
    let bridge: HomeKitBridge
    let store: any HAPPairingStore
    let name: String
    let logger: Logger

    /// How often the accessory set is compared with the published one besides the accessory
    /// events (a mapping reload can change services without adding or removing an accessory).
    static let shapeCheckInterval: Duration = .seconds(30)

    public init(access: GatewayAccess, settings: GatewayConfiguration.HAP, database: String, logger: Logger) throws(HAPBridgeError) {
        var configuration = HAPServerConfiguration(host: settings.bind, port: settings.port, model: "homegate", category: .bridge)
        if let code = settings.revealedSetupCode {
            do {
                configuration.setupCode = try HAPSetupCode(code)
            } catch {
                // Not the HAP module's message: it quotes the code, and the code is a secret.
                throw .configuration(
                    "hap.setup_code: HomeKit refuses codes that are too easy to guess (all digits alike, 123-45-678, 876-54-321); leave it out for a random one")
            }
        }
        let files = HAPBridgeFiles(database: database)
        try files.makeFolder()
        do {
            store = try HAPFilePairingStore(path: files.pairingStore)
        } catch {
            throw .storage("\(error)")
        }
        self.access = access
        self.name = settings.name
        self.logger = logger
        bridge = try HomeKitBridge(
            access: access, identifiers: HAPIdentifierFile(path: files.identifiers),
            bridge: BridgeIdentity(name: settings.name, serialNumber: "", firmware: HAPBridgeService.firmware), logger: logger)
        server = HAPServer(configuration: configuration, provider: bridge, store: store, logger: logger)
    }

    /// homegate's version as HAP's FirmwareRevision wants it.
    static let firmware = "0.1.0"

    public func run() async throws {
        let identity = try await server.identity()
        await bridge.setBridge(BridgeIdentity(name: name, serialNumber: identity.deviceID.description, firmware: Self.firmware))
        await bridge.refresh()
        // A shape that differs from the last one published (a device joined while homegate was
        // stopped, a mapping changed) bumps `c#` before any controller connects.
        if await bridge.takeShapeChange() {
            let current = try await store.configurationNumber()
            try await store.saveConfigurationNumber(current >= 65535 ? 1 : current + 1)
        }
        let advertisement = BridgeAdvertisement(server: server, name: name, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.forwardEvents() }
            group.addTask { await self.watchShape() }
            group.addTask { await advertisement.run() }
            try await server.run()
            group.cancelAll()
        }
    }

    /// Sends the core's value changes to the subscribed controllers, and re-checks the accessory
    /// set when accessories come or go. Runs until cancelled; a stream cut off for falling behind
    /// is opened again (the controllers miss those events, as they would a lost connection).
    private func forwardEvents() async {
        while !Task.isCancelled {
            let events = access.events.subscribe(EventFilter(types: ["characteristic", "accessory", "mapping_file"]))
            for await event in events {
                switch event.event {
                case .characteristic(let change):
                    if let (hap, excluding) = await bridge.change(for: change) { server.notify([hap], excluding: excluding) }
                case .accessory(_, .added, _), .accessory(_, .removed, _), .mappingFile:
                    await checkShape()
                default: break
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    private func watchShape() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.shapeCheckInterval)
            } catch {
                return
            }
            await checkShape()
        }
    }

    /// Bumps `c#` (and with it the advertisement) when the accessory set changed.
    private func checkShape() async {
        await bridge.refresh()
        guard await bridge.takeShapeChange() else { return }
        do {
            let number = try await server.accessoriesChanged()
            logger.info("the HomeKit accessory set changed", metadata: ["c#": "\(number)"])
        } catch {
            logger.error("cannot store the HomeKit configuration number: \(error)")
        }
    }
}
