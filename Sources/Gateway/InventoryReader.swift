import Mappings
import Synchronization

/// Reads a bridge's device list on libmosquitto's network thread (`MQTTClient.readLargePayloads`),
/// routed as the front end routes messages: the runtime hands it each new `DeviceSources` when the
/// mapping files change.
final class InventoryReader: Sendable {
    private struct State {
        var sources: DeviceSources
        /// Each bridge's reader, which knows the devices of the list it read last.
        var readers: [String: Zigbee2MQTTDevice.ListReader] = [:]
    }

    private let state: Mutex<State>

    init(_ sources: DeviceSources) {
        state = Mutex(State(sources: sources))
    }

    func update(_ sources: DeviceSources) {
        state.withLock { state in
            state.sources = sources
            state.readers = state.readers.filter { sources.inventoryBase("\($0.key)/bridge/devices") == $0.key }
        }
    }

    /// The list read from `payload`: the same bytes as the bridge's last list are that list again,
    /// and in a changed list only the devices whose bytes changed are parsed (a few milliseconds to
    /// find and hash them against tens to parse, for a thousand devices).
    func read(_ topic: String, _ payload: UnsafeRawBufferPointer) -> DeviceInput? {
        let sources = state.withLock { $0.sources }
        guard let base = sources.inventoryBase(topic) else { return nil }
        // Taken out while it reads, so it is not copied; only this thread reads.
        var reader = state.withLock { $0.readers.removeValue(forKey: base) } ?? Zigbee2MQTTDevice.ListReader()
        let input = sources.inventory(lent: topic, payload, reader: &reader)
        state.withLock { $0.readers[base] = reader }
        return input
    }
}
