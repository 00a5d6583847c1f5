import JSON
public import Logging
public import Mosquitto
import Synchronization

/// Serves a `SimulatedBridge` on a broker until cancelled.
public struct SimulatorService: Sendable {
    public var bridge: SimulatedBridge
    public var client: MQTTConfiguration
    /// Seconds between readings of each reporting device; nil for none.
    public var sensorInterval: Double?
    /// Device messages per second spread over all reporting devices (for load tests); nil for none.
    public var rate: Double?
    public var logger: Logger

    public init(bridge: SimulatedBridge, client: MQTTConfiguration, sensorInterval: Double? = nil, rate: Double? = nil, logger: Logger) {
        self.bridge = bridge
        self.client = client
        self.sensorInterval = sensorInterval
        self.rate = rate
        self.logger = logger
    }

    public func run() async throws {
        var configuration = client
        let stateTopic = "\(bridge.baseTopic)/bridge/state"
        configuration.will = .init(topic: stateTopic, payload: Array(#"{"state":"offline"}"#.utf8))
        let mqtt = try MQTTClient(configuration)
        try mqtt.start()
        try await mqtt.waitUntilConnected()
        let base = bridge.baseTopic
        for filter in ["+/set", "+/set/+", "+/+/set", "+/+/set/+", "+/get", "+/+/get", "bridge/request/#"] {
            try await mqtt.subscribe("\(base)/\(filter)", qos: .atLeastOnce)
        }
        let state = BridgeBox(bridge)
        try publish(state.withLock { $0.startup() }, on: mqtt)
        logger.info("simulating a Zigbee2MQTT bridge", metadata: ["devices": "\(bridge.devices.count)", "base_topic": "\(base)"])
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                for await message in mqtt.messages {
                    let replies = state.withLock { $0.handle(topic: message.topic, payload: message.payload) }
                    try publish(replies, on: mqtt)
                }
            }
            // `rate` 0 is no readings at all, as `sensorInterval` nil is (never a division by zero).
            let interval =
                if let rate { rate > 0 ? 1 / rate : nil } else { sensorInterval.map { $0 / Double(max(1, bridge.reportingDevices.count)) } }
            if let interval {
                group.addTask { try await report(every: interval, state: state, mqtt: mqtt) }
            }
            // Until cancelled (the group's stop): the bridge then says it is offline, as Zigbee2MQTT does.
            try? await Task.sleep(for: .seconds(365 * 24 * 3600))
            await mqtt.shutdown(finalMessage: .init(topic: stateTopic, payload: Array(#"{"state":"offline"}"#.utf8)))
        }
    }

    /// Readings round-robin over the reporting devices, one every `interval` seconds, batched per 10 ms tick.
    private func report(every interval: Double, state: BridgeBox, mqtt: MQTTClient) async throws {
        var random = SystemRandomNumberGenerator()
        let names = state.withLock { $0.reportingDevices }
        guard !names.isEmpty else { return }
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0
        var next = 0
        while !Task.isCancelled {
            try await clock.sleep(for: .milliseconds(10))
            let due = Int((clock.now - start) / .seconds(interval))
            var batch: [SimulatedBridge.Publish] = []
            while sent < due {
                let name = names[next % names.count]
                next += 1
                sent += 1
                if let reading = state.withLock({ $0.reading(from: name, using: &random) }) { batch.append(reading) }
            }
            try publish(batch, on: mqtt)
        }
    }

    private func publish(_ messages: [SimulatedBridge.Publish], on mqtt: MQTTClient) throws {
        for message in messages {
            try mqtt.publish(
                message.topic, Array(message.payload.utf8), qos: message.retain ? .atLeastOnce : .atMostOnce, retain: message.retain)
        }
    }
}

/// The bridge's single owner across the message task and the reading task.
final class BridgeBox: Sendable {
    private let bridge: Mutex<SimulatedBridge>
    init(_ bridge: SimulatedBridge) { self.bridge = Mutex(bridge) }
    func withLock<T>(_ body: (inout SimulatedBridge) -> T) -> T { bridge.withLock { body(&$0) } }
}
