import Foundation
import Gateway
import HAP
import HomeModel
import Logging

/// The home as HAP accessories, over the core's typed surface (`GatewayAccess`): what the HAP
/// server asks (`/accessories`, reads, writes, identify) answered from snapshots and core commands.
/// Writes go through the same command as MQTT's and HTTP's, credited to `hap`.
actor HomeKitBridge: HAPAccessoryProvider {
    private let access: GatewayAccess
    private let registry: HAPIdentifierRegistry
    /// Which bridge this is (0: the first).
    let index: Int
    private let logger: Logger
    private var bridge: BridgeIdentity
    private var layout = BridgeLayout()
    /// The connection that last wrote each characteristic: the change the write brings (credited to
    /// `hap`) is not sent back to it.
    private var writers: [CharacteristicPath: HAPConnectionID] = [:]
    /// The connection that last wrote each service's ConfiguredName, left out of that rename's event.
    private var nameWriters: [ServiceReference: HAPConnectionID] = [:]

    init(access: GatewayAccess, registry: HAPIdentifierRegistry, index: Int, bridge: BridgeIdentity, logger: Logger) {
        self.access = access
        self.registry = registry
        self.index = index
        self.bridge = bridge
        self.logger = logger
    }

    func setBridge(_ identity: BridgeIdentity) { bridge = identity }

    /// Lays the bridge's part of the home out anew.
    @discardableResult
    func refresh() async -> BridgeLayout {
        let snapshot = await access.snapshot()
        layout = await registry.layout(bridge: index, snapshot, identity: bridge)
        return layout
    }

    /// The bridged accessories as last laid out (the bridge itself not counted).
    var bridgedCount: Int { max(0, layout.accessories.count - 1) }

    /// Whether the accessory set differs from the one last published (and remembers this one).
    func takeShapeChange() async -> Bool {
        await registry.takeShapeChange(bridge: index, fingerprint: layout.fingerprint)
    }

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
        let snapshot = await access.snapshot()
        let accessories = Dictionary(snapshot.accessories.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var results: [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        for id in ids {
            switch layout.targets[id] {
            case nil: results[id] = .failure(.resourceDoesNotExist)
            case .fixed(let value): results[id] = .success(value)
            case .identify: results[id] = .failure(.writeOnly)
            case .serviceName(let accessory, let service, _):
                let name = accessories[accessory].flatMap { ServiceNames.names(of: $0)[service] }
                results[id] = name.map { .success(.string($0)) } ?? .failure(.resourceDoesNotExist)
            case .home(let path, _):
                guard let accessory = accessories[path.accessory],
                    let characteristic = accessory[path.service]?[path.characteristic]
                else {
                    results[id] = .failure(.resourceDoesNotExist)
                    continue
                }
                // "No Response" in Apple Home: HAP has no other way to say a device is offline.
                guard accessory.reachable else {
                    results[id] = .failure(.serviceCommunicationFailure)
                    continue
                }
                results[id] = .success(HAPConversion.readValue(characteristic))
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
            case .home(let path, _):
                writers[path] = connection
                requests.append(
                    WriteRequest(
                        accessory: path.accessory, service: path.service, characteristic: path.characteristic,
                        value: HAPConversion.json(write.value)))
                requested.append(write.id)
            }
        }
        guard !requests.isEmpty else { return statuses }
        let answer = await access.perform(.values(.write(requests, source: .hap)))
        if case .writes(let outcomes) = answer.result, outcomes.count == requested.count {
            for (id, outcome) in zip(requested, outcomes) {
                switch outcome {
                case .success: statuses[id] = .success
                case .failure(let error): statuses[id] = HAPStatusMapping.status(for: error)
                }
            }
        } else {
            let status = answer.error.map(HAPStatusMapping.status(for:)) ?? .success
            for id in requested { statuses[id] = status }
        }
        return statuses
    }

    /// A tile renamed in the Home app: the service is renamed in homegate (kept, announced, shown by
    /// the API), as `accessory/rename_service` does; an empty name gives it its mapping's back.
    private func renameService(_ accessory: String, _ service: String, to value: HAPValue, from connection: HAPConnectionID) async
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
            return HAPStatusMapping.status(for: error)
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
            logger.info("identify asked by a HomeKit controller: the device was asked to show itself", metadata: ["accessory": "\(accessory)"])
        }
    }

    // MARK: Events

    /// The ConfiguredName event of a service renamed in homegate, laid out anew first (Name and
    /// `/accessories` carry the new name), and the connection to leave out (the Home app's that wrote it).
    func serviceRenamed(accessory: String, service: String) async -> (HAPCharacteristicChange, excluding: HAPConnectionID?)? {
        let reference = ServiceReference(accessory: accessory, service: service)
        let excluding = nameWriters.removeValue(forKey: reference)
        let layout = await refresh()
        guard let id = layout.configuredNames[reference],
            let accessory = await access.snapshot().accessories.first(where: { $0.id == accessory }),
            let name = ServiceNames.names(of: accessory)[service]
        else { return nil }
        return (HAPCharacteristicChange(id: id, value: .string(name)), excluding)
    }

    /// The HAP form of a change in the home, and the connection to leave out (the writer's).
    func change(for change: CharacteristicChange) -> (HAPCharacteristicChange, excluding: HAPConnectionID?)? {
        guard let id = layout.ids[change.path], case .home(_, let metadata) = layout.targets[id] else { return nil }
        let excluding = change.source == .hap ? writers[change.path] : nil
        return (HAPCharacteristicChange(id: id, value: HAPConversion.value(change.value, format: metadata.type.format)), excluding)
    }
}
