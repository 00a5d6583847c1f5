public import Foundation
public import GatewayCore

/// The whole pure path from the broker's messages back to the broker, as the runtime runs it: the
/// machine (`HomeMachine`) with the MQTT API as its broker peer, and every change stored at once.
/// No broker, no store, no other front end: for tests and the fuzz targets.
public struct MQTTPipeline: Sendable {
    public var machine: HomeMachine
    var mqtt: MQTTAPI

    public init(baseTopic: String, core: HomeCore, maxPayloadBytes: Int = 256 * 1024) {
        machine = HomeMachine(core: core, maxPayloadBytes: maxPayloadBytes)
        mqtt = MQTTAPI(baseTopic: baseTopic)
    }

    public var core: HomeCore { machine.core }
    public var devices: DeviceSources { machine.devices }

    /// Whether the device lists come apart (`HomeMachine.listsApart`).
    public var listsApart: Bool {
        get { machine.listsApart }
        set { machine.listsApart = newValue }
    }

    /// The main connection's filters: the devices' and the MQTT API's own.
    public var subscriptions: Set<String> { machine.subscriptions.union(mqtt.topics.subscriptions) }
    public var listSubscriptions: Set<String> { machine.listSubscriptions }

    public var counters: GatewayCounters { mqtt.counted(machine.counters) }

    public mutating func drainNotices() -> [HomeCore.Notice] {
        defer { mqtt.notices = [] }
        return machine.drainNotices() + mqtt.notices
    }

    /// One batch, and what waited for the store as though stored at once: every message the
    /// gateway publishes for it, in order (device messages first).
    public mutating func handleStored(_ messages: consuming [Incoming], now: Date = Date()) -> [Outgoing] {
        let output = machine.handleStored(messages, peer: &mqtt, now: now)
        return output.devices + mqtt.render(output).messages
    }
}
