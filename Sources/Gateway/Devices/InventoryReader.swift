import Mappings
import Synchronization

/// Reads a bridge's device list on libmosquitto's network thread (`MQTTClient.readLargePayloads`),
/// routed as the front end routes messages: the runtime hands it each new `DeviceSources` when the
/// mapping files change.
final class InventoryReader: Sendable {
    private struct State {
        var sources: DeviceSources
        /// Each bridge's last list read here: its size, a hash of its bytes, and what it said.
        var last: [String: (bytes: Int, hash: Int, devices: [Zigbee2MQTTDevice])] = [:]
    }

    private let state: Mutex<State>

    init(_ sources: DeviceSources) {
        state = Mutex(State(sources: sources))
    }

    func update(_ sources: DeviceSources) {
        state.withLock { state in
            state.sources = sources
            state.last = state.last.filter { sources.inventoryBase("\($0.key)/bridge/devices") == $0.key }
        }
    }

    /// The list read from `payload`; the same bytes as the bridge's last list are that list again,
    /// without reading them (a few milliseconds to hash against tens to parse, for a thousand devices).
    func read(_ topic: String, _ payload: UnsafeRawBufferPointer) -> DeviceInput? {
        let sources = state.withLock { $0.sources }
        guard let base = sources.inventoryBase(topic) else { return nil }
        var hasher = Hasher()
        hasher.combine(bytes: payload)
        let hash = hasher.finalize()
        if let last = state.withLock({ $0.last[base] }), last.bytes == payload.count, last.hash == hash {
            return .devices(bridge: base, last.devices)
        }
        let input = sources.inventory(lent: topic, payload)
        state.withLock { state in
            if case .devices(_, let devices)? = input {
                state.last[base] = (payload.count, hash, devices)
            } else {
                state.last[base] = nil
            }
        }
        return input
    }
}
