import Foundation
import JSON
import Mosquitto
import Synchronization

/// One run of the automation path next to the broker alone, on the same broker at the same time.
struct AutomationRun {
    var broker: Latencies
    /// The motion change's own `homegate/event/...`: the gateway hop without the automation.
    var event: Latencies
    var gateway: Latencies
    var lost: [String: Int]
    /// `/set` payloads that were not the action set's value, and the first `/set` seen.
    var wrongPayloads: Int
    var firstSet: String?
    var backgroundSent: Int
    var backgroundRate: Double
    var cpuSeconds: Double?
    var rssKiB: Int?
    var peakRSSKiB: Int?
}

extension House {
    /// Each pair's motion alternates true/false, so each sample is a real change that fires its "on"
    /// or "off" trigger; the pairs take turns (the loop limit); the broker-only sample goes out half a
    /// period earlier so the two never overlap.
    func automationLatency(_ automations: BenchAutomations, rate: Int, seconds: Double, background: Int) async throws -> AutomationRun {
        let pairs = automations.pairs
        let brokerTopic = "bench/\(automations.motion)"
        let lightOfSet = Dictionary(uniqueKeysWithValues: pairs.map { ("zigbee2mqtt/\($0.light)/set", $0.light) })
        let motionOfEvent = Dictionary(
            uniqueKeysWithValues: pairs.map {
                (
                    "homegate/event/\($0.motion)/\(BenchAutomations.motionPath.service)/\(BenchAutomations.motionPath.characteristic)",
                    $0.motion
                )
            })
        if Double(rate) > automations.maxProbeRate {
            say("note: \(rate) probes/s over \(pairs.count) pairs comes near the loop limit (30 fires in 10 s); the gateway may stop them")
        }
        let listener = try await Self.client(broker, "bench-automation-listener")
        for topic in [brokerTopic] + lightOfSet.keys + motionOfEvent.keys { try await listener.subscribe(topic, qos: .atMostOnce) }
        let publisher = try await Self.client(broker, "bench-automation-publisher")

        let sent = Mutex<[String: UInt64]>([:])
        let samples = Mutex<(paths: [String: [Double]], wrong: Int, first: String?)>(([:], 0, nil))
        let reader = Task {
            for await message in listener.messages {
                let arrived = DispatchTime.now().uptimeNanoseconds
                let key: String
                if let light = lightOfSet[message.topic] {
                    // The action sets write only `on`: anything else in the payload is not theirs.
                    let json = try? JSONValue(parsing: message.payload)
                    let state = json?["state"]?.stringValue ?? "?"
                    let expected = json?.objectValue?.count == 1 && (state == "ON" || state == "OFF")
                    samples.withLock {
                        if $0.first == nil { $0.first = message.payloadString }
                        if !expected { $0.wrong += 1 }
                    }
                    key = "gateway|\(light)|\(state)"
                } else if let motion = motionOfEvent[message.topic] {
                    key = "event|\(motion)|\((try? JSONValue(parsing: message.payload))?["value"]?.boolValue.map(String.init) ?? "?")"
                } else {
                    key = "broker|\(message.payloadString)"
                }
                guard let start = sent.withLock({ $0.removeValue(forKey: key) }) else { continue }
                let ms = Double(arrived - start) / 1e6
                samples.withLock { $0.paths[path(key), default: []].append(ms) }
            }
        }
        let load = background > 0 ? try await BackgroundLoad.start(self, perSecond: background) : nil
        let before = ProcessStats(pid: gateway)

        var lost: [String: Int] = [:]
        // Whole rounds of on and off per pair, so the next run's first sample is a change (see TailRun).
        let total = max(Int(Double(rate) * seconds) / (2 * pairs.count), 1) * 2 * pairs.count
        let period = Duration.seconds(1) / rate
        let clock = ContinuousClock()
        let start = clock.now
        for k in 0..<total {
            let pair = pairs[k % pairs.count]
            let motion = (k / pairs.count) % 2 == 0
            let payload = Array(#"{"occupancy":\#(motion)}"#.utf8)
            let deviceTopic = "zigbee2mqtt/\(pair.motion)"
            for (topic, keys) in [
                (brokerTopic, ["broker|\(String(decoding: payload, as: UTF8.self))"]),
                (deviceTopic, ["event|\(pair.motion)|\(motion)", "gateway|\(pair.light)|\(motion ? "ON" : "OFF")"]),
            ] {
                try await clock.sleep(until: start + period * k + (topic == brokerTopic ? .zero : period / 2))
                let now = DispatchTime.now().uptimeNanoseconds
                // A key still waiting from two samples ago never arrived.
                for key in keys where sent.withLock({ $0.updateValue(now, forKey: key) != nil }) { lost[path(key), default: 0] += 1 }
                try publisher.publish(topic, payload)
            }
        }
        try await Task.sleep(for: .seconds(1))
        let after = ProcessStats(pid: gateway)
        let backgroundSent = await load?.stop() ?? (0, 0)
        for key in sent.withLock({ Array($0.keys) }) { lost[path(key), default: 0] += 1 }
        reader.cancel()
        await publisher.shutdown()
        await listener.shutdown()
        let result = samples.withLock { $0 }
        return AutomationRun(
            broker: Latencies(samples: result.paths["broker"] ?? []), event: Latencies(samples: result.paths["event"] ?? []),
            gateway: Latencies(samples: result.paths["gateway"] ?? []), lost: lost, wrongPayloads: result.wrong, firstSet: result.first,
            backgroundSent: backgroundSent.0, backgroundRate: backgroundSent.1,
            cpuSeconds: before.flatMap { b in after.map { $0.cpuSeconds - b.cpuSeconds } }, rssKiB: after?.rssKiB,
            peakRSSKiB: after?.peakRSSKiB)
    }
}

/// `gateway|ON` → `gateway`.
private func path(_ key: String) -> String { String(key.prefix { $0 != "|" }) }

/// Unrelated temperature readings at a steady rate from their own client and thread, so pacing
/// them never waits behind the sampler on Swift's cooperative pool.
final class BackgroundLoad: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)
    private let sent = Atomic<Int>(0)
    private let elapsedNanos = Atomic<UInt64>(0)
    private let client: MQTTClient

    private init(client: MQTTClient) { self.client = client }

    static func start(_ house: House, perSecond rate: Int) async throws -> BackgroundLoad {
        let load = BackgroundLoad(client: try await House.client(house.broker, "bench-background"))
        let sensors = house.sensors
        let thread = Thread { [load] in
            var counters = [Int](repeating: 0, count: sensors.count)
            let start = DispatchTime.now().uptimeNanoseconds
            var i = 0
            while !load.stopping.load(ordering: .relaxed) {
                let due = Int((DispatchTime.now().uptimeNanoseconds - start) * UInt64(rate) / 1_000_000_000)
                while i < due {
                    let s = i % sensors.count
                    counters[s] += 1
                    let payload =
                        #"{"battery":90,"humidity":50,"linkquality":120,"temperature":\#(house.reading(counters[s], sensor: s)),"voltage":2985}"#
                    if (try? load.client.publish("zigbee2mqtt/\(sensors[s])", Array(payload.utf8))) != nil {
                        load.sent.add(1, ordering: .relaxed)
                    }
                    i += 1
                }
                usleep(500)
            }
            load.elapsedNanos.store(DispatchTime.now().uptimeNanoseconds - start, ordering: .relaxed)
            load.done.store(true, ordering: .releasing)
        }
        thread.start()
        return load
    }

    /// Messages sent and the rate they went out at.
    func stop() async -> (Int, Double) {
        stopping.store(true, ordering: .relaxed)
        while !done.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(5)) }
        await client.shutdown()
        let count = sent.load(ordering: .relaxed)
        return (count, Double(count) / max(1e-9, Double(elapsedNanos.load(ordering: .relaxed)) / 1e9))
    }
}
