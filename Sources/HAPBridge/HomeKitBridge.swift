import Foundation
import GatewayCore
import HAP
import HomeModel
import Logging

/// One HomeKit bridge: its HAP server over its share of the home, the core's value changes sent to
/// its subscribed controllers once per burst, its layout made again when the house's tree changes
/// (`TreeChanges`), `c#` bumped when its accessory set changes, and its `_hap._tcp` advertisement.
/// A house of more than 149 accessories has several.
final class HomeKitBridge: Sendable {
    let access: any GatewayAccess
    let server: HAPServer
    let accessories: BridgeAccessories
    let store: any HAPPairingStore
    let name: String
    /// 0 for the first bridge.
    let index: Int
    let logger: Logger
    /// Hears each change of the advertisement (for the health report and the web page).
    let advertised: @Sendable (HomeKitAdvertisement) -> Void
    /// The core's value and reachability events, a publish at a time.
    let feed: PeerEventFeed

    /// How long the tree must have been still before `c#` follows it: a device that joins brings
    /// several changes in a row, and controllers should re-read `/accessories` once.
    static let shapeCheckInterval: Duration = .seconds(1)

    /// How long `c#` waits at most for every Zigbee2MQTT bridge's device list after the start: the
    /// house is as stored until then, and a house changed only by a late list (a power cut, a broker
    /// restarted without persistence) must not look changed to HomeKit.
    static let inventoryWait: Duration = .seconds(30)

    /// Events the bridge may fall behind by before it drops them and lays itself out from a snapshot.
    static let feedCapacity = 10_000

    /// homegate's version as HAP's FirmwareRevision wants it (`major.minor.revision`).
    static let firmware = HomegateVersion.number

    init(
        access: any GatewayAccess, registry: IdentifierRegistry, index: Int, configuration: HAPServerConfiguration,
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
        accessories = BridgeAccessories(
            access: access, registry: registry, index: index,
            bridge: BridgeIdentity(name: name, serialNumber: "", firmware: Self.firmware), logger: logger)
        server = HAPServer(configuration: configuration, provider: accessories, store: store, logger: logger)
        feed = .homeKit(capacity: Self.feedCapacity)
        access.events.attach(feed)
    }

    func run() async throws {
        let identity = try await server.identity()
        await accessories.setBridge(BridgeIdentity(name: name, serialNumber: identity.deviceID.description, firmware: Self.firmware))
        // The feed first: what happens while the snapshot is taken is taken into the layout after it.
        let arrivals = feed.start()
        defer { feed.stop() }
        let laidOut = access.treeChanges.generation
        await accessories.refresh()
        let advertisement = BridgeAdvertisement(server: server, name: name, logger: logger, changed: advertised)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.forwardEvents(arrivals) }
            group.addTask { await self.watchShape(from: laidOut) }
            group.addTask { await advertisement.run() }
            try await server.run()
            group.cancelAll()
        }
    }

    /// Sends the core's value changes to the subscribed controllers: each batch the feed gathered
    /// (a publish's events, or several publishes' while the last batch was handled) taken into the
    /// layout in one hop and handed to the server at once, so each connection is woken once per
    /// batch, not per event. Runs until cancelled or the gateway stops.
    private func forwardEvents(_ arrivals: AsyncStream<Void>) async {
        for await _ in arrivals {
            let (events, overflowed) = feed.take()
            // Fallen behind: the values come from a snapshot; the controllers miss what was dropped.
            if overflowed { await accessories.refresh() }
            guard !events.isEmpty else { continue }
            for run in await accessories.take(events) { server.notify(run.changes, excluding: run.excluding) }
            // A service renamed in homegate: its ConfiguredName, to every controller but the one that wrote it.
            for case .accessory(let id, .serviceRenamed, let state) in events {
                if let service = state?.service?.id,
                    let (hap, excluding) = await accessories.serviceRenamed(accessory: id, service: service)
                {
                    server.notify([hap], excluding: excluding)
                }
            }
        }
    }

    /// Lays the bridge out when the house's tree changes, and bumps `c#` once the tree has been
    /// still for a `shapeCheckInterval`: at start the gateway is still catching up with the devices
    /// (their list comes from the broker, their mappings with it), and a device that joins brings
    /// several changes in a row; controllers should re-read `/accessories` once, not for each step.
    /// Nor before every Zigbee2MQTT bridge's device list has come (or `inventoryWait` passed): until
    /// then the house is the one stored at the last run, and an unchanged house keeps its `c#`
    /// across restarts. The house as found at start (laid out at generation `laidOut`) counts as a
    /// change: it may differ from the one last published.
    private func watchShape(from laidOut: UInt64) async {
        let started = ContinuousClock.now
        var changes = access.treeChanges.subscribe().makeAsyncIterator()
        var laid = laidOut
        // The generation `c#` last followed with every device list in; until then, looked at each interval.
        var settled: UInt64?
        var reported: UInt64?
        while !Task.isCancelled {
            if let settled {
                // A change after the one last settled (the stream may still hold that one).
                var next: UInt64?
                repeat { next = await changes.next() } while next.map { $0 <= settled } == true
                guard next != nil else { return }
            }
            guard let still = await settle(after: laid) else { return }
            laid = still
            let heard = await access.inventoriesHeard()
            // A list that changed the tree raised the generation in the step that heard it.
            guard access.treeChanges.generation == still else { continue }
            guard heard || ContinuousClock.now - started >= Self.inventoryWait else { continue }
            await checkShape(settling: heard)
            if reported != still {
                reported = still
                await accessories.reportUnmatchedSelectors()
            }
            if heard { settled = still }
        }
    }

    /// Lays the bridge out again for each change after generation `laidOut` (at once), until the
    /// tree has held still for a `shapeCheckInterval`; the generation it settled at, or nil once
    /// cancelled.
    private func settle(after laidOut: UInt64) async -> UInt64? {
        var seen = laidOut
        while true {
            let now = access.treeChanges.generation
            if now != seen {
                seen = now
                await accessories.refresh()  // its snapshot is of generation `now` or later
            }
            do {
                try await Task.sleep(for: Self.shapeCheckInterval)
            } catch {
                return nil
            }
            if access.treeChanges.generation == seen { return seen }
        }
    }

    /// Bumps `c#` (and with it the advertisement) when the accessory set differs from the one
    /// published. `settling`: laid out with every inventory heard, so that the bridge is settled after.
    private func checkShape(settling: Bool) async {
        let (changed, removed) = await accessories.takeShapeChange()
        guard changed else {
            if settling { await accessories.markSettled() }
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
        if settling { await accessories.markSettled() }
    }
}
