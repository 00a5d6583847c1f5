import Logging
import NIOCore
import Synchronization

/// The open connections, so that events and closed pairings reach them from any thread; and the
/// limit on verified ones (`HAPServerConfiguration.verifiedConnectionLimit`).
final class HAPConnectionRegistry: Sendable {
    struct Entry: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<HAPConnectionHandler>
        var controllerID: String?
        /// When the controller last sent a request.
        var lastRequest: ContinuousClock.Instant
    }

    private let entries = Mutex<[HAPConnectionID: Entry]>([:])
    private let nextID = Atomic<UInt64>(1)
    let verifiedLimit: Int
    private let logger: Logger

    init(verifiedLimit: Int = 32, logger: Logger = Logger(label: "hap")) {
        self.verifiedLimit = max(1, verifiedLimit)
        self.logger = logger
    }

    func makeID() -> HAPConnectionID {
        HAPConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    func add(_ id: HAPConnectionID, channel: any Channel, handler: NIOLoopBound<HAPConnectionHandler>) {
        entries.withLock { $0[id] = Entry(channel: channel, handler: handler, lastRequest: .now) }
    }

    func remove(_ id: HAPConnectionID) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// The connection has pair-verified. Past the limit, the verified connection whose controller
    /// has been quiet longest is closed: most likely one that went away without closing.
    func setController(_ controllerID: String, for id: HAPConnectionID) {
        let evicted = entries.withLock { entries -> (HAPConnectionID, Entry)? in
            entries[id]?.controllerID = controllerID
            let verified = entries.filter { $0.value.controllerID != nil }
            guard verified.count > verifiedLimit else { return nil }
            return verified.filter { $0.key != id }.min { $0.value.lastRequest < $1.value.lastRequest }
        }
        guard let (evictedID, entry) = evicted else { return }
        logger.info(
            "more verified HomeKit connections than \(verifiedLimit): closing the one quiet longest",
            metadata: ["connection": "\(evictedID)", "quiet for": "\(ContinuousClock.now - entry.lastRequest)"])
        entry.channel.close(promise: nil)
    }

    /// A request came in on `id`.
    func heardFrom(_ id: HAPConnectionID) {
        entries.withLock { $0[id]?.lastRequest = .now }
    }

    func contains(_ id: HAPConnectionID) -> Bool {
        entries.withLock { $0[id] != nil }
    }

    var count: Int { entries.withLock { $0.count } }

    /// Hands changes to every verified connection but the writer's; each keeps its own subscriptions.
    func deliver(_ changes: [HAPCharacteristicChange], immediate: Set<HAPCharacteristicID>, excluding: HAPConnectionID?) {
        let targets = entries.withLock { entries in
            entries.filter { $0.key != excluding && $0.value.controllerID != nil }.map(\.value)
        }
        for target in targets {
            let handler = target.handler
            target.channel.eventLoop.execute {
                handler.value.enqueueEvents(changes, immediate: immediate)
            }
        }
    }

    /// Closes the sessions of removed controllers, except `keeping`, which closes after its response.
    func closeSessions(of controllerIDs: Set<String>, keeping: HAPConnectionID?) {
        let channels = entries.withLock { entries in
            entries.filter { $0.key != keeping && $0.value.controllerID.map(controllerIDs.contains) == true }.map(\.value.channel)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    func closeAll() {
        for channel in entries.withLock({ $0.values.map(\.channel) }) { channel.close(promise: nil) }
    }
}
