import Foundation
import Gateway
import HAP
import HomeModel
import Logging

/// One HomeKit bridge: its HAP server over its share of the home, the core's value changes sent to
/// its subscribed controllers, `c#` bumped when its accessory set changes, and its `_hap._tcp`
/// advertisement. A house of more than 149 accessories has several.
final class BridgeUnit: Sendable {
    let access: GatewayAccess
    let server: HAPServer
    let bridge: HomeKitBridge
    let store: any HAPPairingStore
    let name: String
    /// 0 for the first bridge.
    let index: Int
    let logger: Logger
    /// Hears each change of the advertisement (for the health report and the web page).
    let advertised: @Sendable (HomeKitAdvertisement) -> Void

    /// How often the accessory set is compared with the published one (a mapping reload can change
    /// services without adding or removing an accessory, so events alone do not tell).
    static let shapeCheckInterval: Duration = .seconds(1)

    /// homegate's version as HAP's FirmwareRevision wants it.
    static let firmware = "0.1.0"

    init(
        access: GatewayAccess, registry: HAPIdentifierRegistry, index: Int, configuration: HAPServerConfiguration,
        name: String, store: any HAPPairingStore, logger: Logger, advertised: @escaping @Sendable (HomeKitAdvertisement) -> Void
    ) {
        self.index = index
        self.advertised = advertised
        self.store = store
        self.access = access
        self.name = name
        var logger = logger
        if index > 0 { logger[metadataKey: "bridge"] = "\(index + 1)" }
        self.logger = logger
        bridge = HomeKitBridge(
            access: access, registry: registry, index: index,
            bridge: BridgeIdentity(name: name, serialNumber: "", firmware: Self.firmware), logger: logger)
        server = HAPServer(configuration: configuration, provider: bridge, store: store, logger: logger)
    }

    func run() async throws {
        let identity = try await server.identity()
        await bridge.setBridge(BridgeIdentity(name: name, serialNumber: identity.deviceID.description, firmware: Self.firmware))
        await bridge.refresh()
        let advertisement = BridgeAdvertisement(server: server, name: name, logger: logger, changed: advertised)
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
                case .accessory(let id, .serviceRenamed, let state):
                    if let service = state?.service?.id, let (hap, excluding) = await bridge.serviceRenamed(accessory: id, service: service) {
                        server.notify([hap], excluding: excluding)
                    }
                case .accessory(_, .added, _), .accessory(_, .removed, _), .mappingFile:
                    // At once, so that the accessory can be read and written; `c#` is `watchShape`'s.
                    await bridge.refresh()
                default: break
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Bumps `c#` when the accessory set has changed and then held still for a `shapeCheckInterval`:
    /// at start the gateway is still catching up with the devices (their list comes from the
    /// broker, their mappings with it), and a device that joins brings several changes in a row;
    /// controllers should re-read `/accessories` once, not for each step.
    private func watchShape() async {
        var previous: String?
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.shapeCheckInterval)
            } catch {
                return
            }
            let fingerprint = await bridge.refresh().fingerprint
            if fingerprint == previous {
                await checkShape()
                await bridge.reportUnmatchedSelectors()
            }
            previous = fingerprint
        }
    }

    /// Bumps `c#` (and with it the advertisement) when the accessory set differs from the one published.
    private func checkShape() async {
        guard await bridge.takeShapeChange() else { return }
        do {
            let number = try await server.accessoriesChanged()
            logger.info("the HomeKit accessory set changed", metadata: ["c#": "\(number)"])
        } catch {
            logger.error("cannot store the HomeKit configuration number: \(error)")
        }
    }
}
