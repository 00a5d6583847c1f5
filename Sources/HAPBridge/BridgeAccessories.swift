import Foundation
import GatewayCore
import HAP
import HomeModel
import Logging

/// One bridge's view of the house: its share of the home as HAP accessories, over the core's typed
/// surface (`GatewayAccess`). What the HAP server asks (`/accessories`, reads, writes, identify) answered from the layout and core commands.
/// The layout is made from a snapshot when the tree changes and holds every value and reachability
/// from the events since, so a read takes no snapshot. Writes go through the same command as MQTT's
/// and HTTP's, credited to `hap`.
actor BridgeAccessories: HAPAccessoryProvider {
    private let access: any GatewayAccess
    private let registry: IdentifierRegistry
    /// Which bridge this is (0: the first).
    let index: Int
    private let logger: Logger
    private var bridge: BridgeIdentity
    private var layout = BridgeLayout()
    /// Whether the accessory set was compared with the published one once the inventories came (or
    /// the wait for them ended): from then on `c#` follows the house (`/api/homekit`'s `settled`).
    private(set) var settled = false
    /// When the accessory set was last compared (nil: not since the start): the accessories that
    /// left since are the ones a change takes away.
    private var comparedAt: Date?
    /// The connection that last wrote each characteristic: the change the write brings (credited to
    /// `hap`) is not sent back to it.
    private var writers: [CharacteristicPath: HAPConnectionID] = [:]
    /// Events taken while a refresh waited for its snapshot, taken again into the layout it makes:
    /// the snapshot may be older than some of them. The suffix of the stream from the refresh's
    /// start, replayed in order, leaves every value as the newest event said.
    private var takenDuringRefresh: [HomeEvent] = []
    private var refreshesUnderWay = 0
    /// Which refresh made the layout: an older one that finishes later does not replace it.
    private var refreshes = 0
    private var laidOutBy = 0
    /// The connection that last wrote each service's ConfiguredName, left out of that rename's event.
    private var nameWriters: [ServiceReference: HAPConnectionID] = [:]

    init(access: any GatewayAccess, registry: IdentifierRegistry, index: Int, bridge: BridgeIdentity, logger: Logger) {
        self.access = access
        self.registry = registry
        self.index = index
        self.bridge = bridge
        self.logger = logger
    }

    func setBridge(_ identity: BridgeIdentity) { bridge = identity }

    /// Lays the bridge's part of the home out anew, from a snapshot.
    @discardableResult
    func refresh() async -> BridgeLayout {
        refreshes += 1
        let number = refreshes
        let start = takenDuringRefresh.count
        refreshesUnderWay += 1
        let snapshot = await access.snapshot()
        var fresh = await registry.layout(bridge: index, snapshot, identity: bridge)
        _ = fresh.take(takenDuringRefresh[start...])
        refreshesUnderWay -= 1
        if refreshesUnderWay == 0 { takenDuringRefresh = [] }
        if number > laidOutBy { (layout, laidOutBy) = (fresh, number) }
        return layout
    }

    /// The bridged accessories as last laid out (the bridge itself not counted).
    var bridgedCount: Int { max(0, layout.accessories.count - 1) }

    /// Whether the accessory set differs from the one last published (and remembers this one),
    /// with the accessories the change takes away: those that left the bridge since the last
    /// comparison (at a start, since the start: one `hap.exclude` now names, one removed meanwhile).
    func takeShapeChange() async -> (changed: Bool, removed: [(aid: Int, accessory: String)]) {
        let since = comparedAt ?? registry.startedAt
        comparedAt = Date()
        guard await registry.takeShapeChange(bridge: index, fingerprint: layout.fingerprint) else { return (false, []) }
        return (true, await registry.departed(bridge: index, since: since))
    }

    /// The accessory set was compared, and `c#` changed if it had to.
    func markSettled() { settled = true }

    /// Warns about `hap.include` / `hap.exclude` selectors that name nothing (the first bridge
    /// only: the selectors are the same for all).
    func reportUnmatchedSelectors() async {
        guard index == 0 else { return }
        await registry.reportUnmatchedSelectors(await access.snapshot())
    }

    // MARK: HAPAccessoryProvider

    func accessories() async -> [HAPAccessory] {
        await refresh().accessories
    }

    func read(_ ids: [HAPCharacteristicID]) async -> [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] {
        var results: [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        for id in ids {
            switch layout.targets[id] {
            case nil: results[id] = .failure(.resourceDoesNotExist)
            case .fixed(let value): results[id] = .success(value)
            case .identify: results[id] = .failure(.writeOnly)
            case .serviceName(let accessory, let service, _):
                let name = layout.serviceNames[ServiceReference(accessory: accessory, service: service)]
                results[id] = name.map { .success(.string($0)) } ?? .failure(.resourceDoesNotExist)
            case .home(let index):
                let home = layout.homes[index]
                // "No Response" in Apple Home: HAP has no other way to say a device is offline.
                guard layout.reachable[home.path.accessory] == true else {
                    results[id] = .failure(.serviceCommunicationFailure)
                    continue
                }
                results[id] = .success(Conversion.readValue(home.characteristic))
            }
        }
        return results
    }

    func write(_ writes: [HAPWrite], from connection: HAPConnectionID) async -> [HAPCharacteristicID: HAPStatus] {
        var statuses: [HAPCharacteristicID: HAPStatus] = [:]
        var requests: [WriteRequest] = []
        var requested: [HAPCharacteristicID] = []
        for write in writes {
            switch layout.targets[write.id] {
            case nil: statuses[write.id] = .resourceDoesNotExist
            case .fixed: statuses[write.id] = .readOnly
            case .identify(let accessory):
                await identify(accessory: accessory)
                statuses[write.id] = .success
            case .serviceName(_, _, configured: false): statuses[write.id] = .readOnly
            case .serviceName(let accessory, let service, configured: true):
                statuses[write.id] = await renameService(accessory, service, to: write.value, from: connection)
            case .home(let index):
                let path = layout.homes[index].path
                writers[path] = connection
                requests.append(
                    WriteRequest(
                        accessory: path.accessory, service: path.service, characteristic: path.characteristic,
                        value: Conversion.json(write.value)))
                requested.append(write.id)
            }
        }
        guard !requests.isEmpty else { return statuses }
        let answer = await access.perform(.values(.write(requests, source: .hap)))
        if case .writes(let outcomes) = answer.result, outcomes.count == requested.count {
            for (id, outcome) in zip(requested, outcomes) {
                switch outcome {
                case .success: statuses[id] = .success
                case .failure(let error): statuses[id] = StatusMapping.status(for: error)
                }
            }
        } else {
            let status = answer.error.map(StatusMapping.status(for:)) ?? .success
            for id in requested { statuses[id] = status }
        }
        return statuses
    }

    /// A tile renamed in the Home app: the service is renamed in homegate (kept, announced, shown by
    /// the API), as `accessory/rename_service` does; an empty name gives it its mapping's back.
    private func renameService(
        _ accessory: String, _ service: String, to value: HAPValue, from connection: HAPConnectionID
    ) async
        -> HAPStatus
    {
        guard case .string(let text) = value else { return .invalidValue }
        let name = text.trimmingCharacters(in: .whitespaces).isEmpty ? nil : text
        let reference = ServiceReference(accessory: accessory, service: service)
        nameWriters[reference] = connection
        let answer = await access.perform(.accessories(.renameService(accessory, service: service, to: name)))
        if let error = answer.error {
            nameWriters[reference] = nil
            logger.info("a HomeKit controller's rename of a service was refused: \(error.message)", metadata: ["accessory": "\(accessory)"])
            return StatusMapping.status(for: error)
        }
        return .success
    }

    /// `/identify` of an unpaired bridge: the bridge itself has nothing to blink, so it is logged.
    func identify(_ aid: Int?) async {
        logger.info("identify asked by a HomeKit controller", metadata: ["accessory": "the bridge"])
    }

    /// An accessory's Identify characteristic written: its device is asked to show itself (the
    /// same command as `accessory/identify`). HomeKit expects success either way; a device that
    /// cannot (or the bridge itself) is logged.
    private func identify(accessory: String?) async {
        guard let accessory else {
            logger.info("identify asked by a HomeKit controller", metadata: ["accessory": "the bridge"])
            return
        }
        let answer = await access.perform(.accessories(.identify(accessory)))
        if let error = answer.error {
            logger.info("identify asked by a HomeKit controller: \(error.message)", metadata: ["accessory": "\(accessory)"])
        } else {
            logger.info(
                "identify asked by a HomeKit controller: the device was asked to show itself", metadata: ["accessory": "\(accessory)"])
        }
    }

    // MARK: Events

    /// Takes one publish's events (or several, gathered while the last were handled) into the
    /// layout, in one hop: the HAP changes for the subscribed controllers, in runs that leave out
    /// the same connection (the writer's, for a change its write brought), in order.
    func take(_ events: [HomeEvent]) -> [(changes: [HAPCharacteristicChange], excluding: HAPConnectionID?)] {
        if refreshesUnderWay > 0 { takenDuringRefresh += events }
        var runs: [(changes: [HAPCharacteristicChange], excluding: HAPConnectionID?)] = []
        for taken in layout.take(events) {
            let excluding = taken.change.source == .hap ? writers[taken.change.path] : nil
            if let last = runs.indices.last, runs[last].excluding == excluding {
                runs[last].changes.append(taken.hap)
            } else {
                runs.append(([taken.hap], excluding))
            }
        }
        return runs
    }

    /// The ConfiguredName event of a service renamed in homegate, laid out anew first (Name and
    /// `/accessories` carry the new name), and the connection to leave out (the Home app's that wrote it).
    func serviceRenamed(accessory: String, service: String) async -> (HAPCharacteristicChange, excluding: HAPConnectionID?)? {
        let reference = ServiceReference(accessory: accessory, service: service)
        let excluding = nameWriters.removeValue(forKey: reference)
        let layout = await refresh()
        guard let id = layout.configuredNames[reference], let name = layout.serviceNames[reference] else { return nil }
        return (HAPCharacteristicChange(id: id, value: .string(name)), excluding)
    }
}
