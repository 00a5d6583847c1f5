import NIOCore
import Synchronization

/// The open connections, so that events and closed pairings reach them from any thread.
final class HAPConnectionRegistry: Sendable {
    struct Entry: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<HAPConnectionHandler>
        var controllerID: String?
    }

    private let entries = Mutex<[HAPConnectionID: Entry]>([:])
    private let nextID = Atomic<UInt64>(1)

    func makeID() -> HAPConnectionID {
        HAPConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    func add(_ id: HAPConnectionID, channel: any Channel, handler: NIOLoopBound<HAPConnectionHandler>) {
        entries.withLock { $0[id] = Entry(channel: channel, handler: handler) }
    }

    func remove(_ id: HAPConnectionID) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    func setController(_ controllerID: String, for id: HAPConnectionID) {
        entries.withLock { $0[id]?.controllerID = controllerID }
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
