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

    /// How long `c#` waits at most for every Zigbee2MQTT bridge's device list after the start: the
    /// house is as stored until then, and a house changed only by a late list (a power cut, a broker
    /// restarted without persistence) must not look changed to HomeKit.
    static let inventoryWait: Duration = .seconds(30)

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
    /// controllers should re-read `/accessories` once, not for each step. Nor before every
    /// Zigbee2MQTT bridge's device list has come (or `inventoryWait` passed): until then the house
    /// is the one stored at the last run, and an unchanged house keeps its `c#` across restarts.
    private func watchShape() async {
        let started = ContinuousClock.now
        var previous: String?
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.shapeCheckInterval)
            } catch {
                return
            }
            let fingerprint = await bridge.refresh().fingerprint
            let heard = await bridge.inventoriesHeard
            if fingerprint == previous, heard || ContinuousClock.now - started >= Self.inventoryWait {
                await checkShape(settling: heard)
                await bridge.reportUnmatchedSelectors()
            }
            previous = fingerprint
        }
    }

    /// Bumps `c#` (and with it the advertisement) when the accessory set differs from the one
    /// published. `settling`: laid out with every inventory heard, so that the bridge is settled after.
    private func checkShape(settling: Bool) async {
        let (changed, removed) = await bridge.takeShapeChange()
        guard changed else {
            if settling { await bridge.markSettled() }
            return
        }
        for (aid, accessory) in removed {
            logger.warning(
                "accessory \(accessory) (aid \(aid)) is no longer bridged: Apple Home forgets it, with its room, scenes and automations; should it come back, it is a new accessory to HomeKit"
            )
        }
        do {
            let number = try await server.accessoriesChanged()
            logger.info("the HomeKit accessory set changed", metadata: ["c#": "\(number)"])
        } catch {
            logger.error("cannot store the HomeKit configuration number: \(error)")
        }
        if settling { await bridge.markSettled() }
    }
}
