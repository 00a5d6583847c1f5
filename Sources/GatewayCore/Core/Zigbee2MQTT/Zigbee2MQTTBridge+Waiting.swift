import Mappings

extension Zigbee2MQTTBridge {
    /// What came for a friendly name no accessory has: the last report and the last availability.
    /// A device list comes on a connection of its own (`mqtt.lists_connection`), so the state
    /// Zigbee2MQTT publishes under a device's new name right after the list that renamed it (or
    /// that it joined) can be read before that list is.
    struct Waiting: Sendable {
        var report: (topic: String, payload: [UInt8], seen: Bool)?
        /// What `<name>/availability` said last: online, offline, or neither (nil).
        var availability: Bool??
    }

    /// Names waited for at most: a name no list ever gives (a device that is no accessory) waits
    /// until the next list that changes, one past the limit is let go at once.
    static let waitingLimit = 1_000

    mutating func wait(for name: String, _ change: (inout Waiting) -> Void) {
        guard waiting[name] != nil || waiting.count < Self.waitingLimit else { return }
        change(&waiting[name, default: Waiting()])
    }

    /// What waited, to be read again now that a list changed; the rest is let go.
    mutating func takeWaiting() -> [String: Waiting] {
        defer { waiting = [:] }
        return waiting
    }

    /// What waits now, read again once already: let go.
    mutating func letWaitingGo() { waiting = [:] }

    /// Friendly names of devices and groups with more than one topic level (`kitchen/light`): the
    /// main connection subscribes to each of their topics when the lists come apart.
    var multiLevelNames: [String] {
        let slash = UInt8(ascii: "/")
        return (devices ?? []).map(\.friendlyName).filter { $0.utf8.contains(slash) }
            + groups.map(\.friendlyName).filter { $0.utf8.contains(slash) }
    }
}
