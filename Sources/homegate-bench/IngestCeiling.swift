import Foundation
import Mosquitto
import MosquittoTesting
import Synchronization

/// Where the readings of an ingest step go, and where what they become is counted.
enum IngestPath: CaseIterable {
    /// Zigbee2MQTT readings into homegate, its temperature events counted.
    case gateway
    /// Readings into `homegate-bench relay`, which publishes an event and a retained state of
    /// homegate's sizes for each and does nothing else: what any gateway could reach here.
    case relay
    /// Readings straight to the subscriber.
    case broker

    var label: String {
        switch self {
        case .gateway: "homegate: reading → event"
        case .relay: "no-work relay: reading → event + state"
        case .broker: "broker alone: reading → subscriber"
        }
    }

    func topic(_ sensor: String) -> String {
        switch self {
        case .gateway: "zigbee2mqtt/\(sensor)"
        case .relay: "\(Self.relayIn)/\(sensor)"
        case .broker: "bench/ingest/sensor/\(sensor)"
        }
    }

    var listened: String {
        switch self {
        case .gateway: "homegate/event/+/temperature_sensor/current_temperature"
        case .relay: "\(Self.relayEvents)/+"
        case .broker: "bench/ingest/sensor/#"
        }
    }

    static let relayIn = "bench/relay/in"
    static let relayEvents = "bench/relay/event"
    static let relayStates = "bench/relay/state"
}

/// One step of a step load: readings published at a steady rate for a few seconds, and what arrived.
struct IngestStep {
    var rate: Int
    var sent: Int
    var received: Int
    /// The rate the publisher actually reached.
    var publishedRate: Double
    /// Seconds from the last publish to the last arrival: how far the far end had fallen behind.
    var drain: Double
    /// Share of one core over the step, of the process that turns readings into events (none for
    /// the broker alone), of the broker, and of this benchmark (the load and the subscriber).
    var cpu: (farEnd: Double?, broker: Double?, bench: Double?) = (nil, nil, nil)
    var kept: Bool { received >= sent }
}

/// How many device messages per second reach the far end with nothing lost and bounded delay:
/// homegate turning readings into events, next to the broker delivering them to one subscriber.
final class IngestCeiling: Sendable {
    let house: House
    let stepSeconds: Double
    /// The delay at the end of a step above which the far end counts as fallen behind.
    let maxDrain: Double
    /// Each sensor's reading count, carried across steps so every reading is a change.
    private let counters: Mutex<[Int]>

    init(house: House, stepSeconds: Double, maxDrain: Double) {
        self.house = house
        self.stepSeconds = stepSeconds
        self.maxDrain = maxDrain
        counters = Mutex([Int](repeating: 0, count: house.sensors.count))
    }

    /// Doubles the rate from `first` until a step loses messages or falls behind, then halves the
    /// gap between the last kept rate and the first failed one three times; the highest kept step.
    func climb(_ path: IngestPath, farEnd: pid_t?, from first: Int, limit: Int) async throws -> (steps: [IngestStep], ceiling: IngestStep?)
    {
        var steps: [IngestStep] = []
        var kept: Int?
        var failed: Int?
        var rate = first
        while rate <= limit {
            let step = try await self.step(path, farEnd: farEnd, rate: rate)
            steps.append(step)
            guard passes(step) else { failed = rate; break }
            kept = rate
            rate *= 2
        }
        if var low = kept, var high = failed {
            for _ in 0..<3 {
                let middle = (low + high) / 2
                let step = try await self.step(path, farEnd: farEnd, rate: middle)
                steps.append(step)
                if passes(step) { low = middle } else { high = middle }
            }
        }
        return (steps, steps.filter(passes).max { $0.publishedRate < $1.publishedRate })
    }

    private func passes(_ step: IngestStep) -> Bool { step.kept && step.drain <= maxDrain }

    /// Sets every sensor to a value the steps never use, so the first reading of a step is a change;
    /// the sizes of the event and the retained state homegate publishes for a sensor's reading
    /// (medians), for the relay to publish the same.
    func prime() async throws -> (eventBytes: Int, stateBytes: Int) {
        let listener = try await House.client(house.broker, "bench-ingest-sizes")
        try await listener.subscribe(IngestPath.gateway.listened, qos: .atMostOnce)
        try await listener.subscribe("homegate/state/+", qos: .atMostOnce)
        let sizes = Mutex<(events: [String: Int], states: [String: Int])>(([:], [:]))
        let reader = Task {
            for await message in listener.messages where !message.retain {
                let levels = message.topic.split(separator: "/")
                sizes.withLock {
                    if levels[1] == "event" { $0.events[String(levels[2])] = message.payload.count }
                    if levels[1] == "state" { $0.states[String(levels[2])] = message.payload.count }
                }
            }
        }
        let client = try await House.client(house.broker, "bench-ingest-prime")
        for sensor in house.sensors {
            try client.publish(
                "zigbee2mqtt/\(sensor)", #"{"battery":90,"humidity":50,"linkquality":120,"temperature":90.5,"voltage":2985}"#)
        }
        try await client.publishAndWait("bench/ingest/primed", Array("1".utf8))
        await client.shutdown()
        try await Task.sleep(for: .seconds(1))
        reader.cancel()
        await listener.shutdown()
        let (events, states) = sizes.withLock { $0 }
        func median(_ values: [Int]) -> Int? { values.isEmpty ? nil : values.sorted()[values.count / 2] }
        guard let event = median(Array(events.values)), let state = median(events.keys.compactMap { states[$0] }) else {
            throw BenchError("homegate published no event and state for the priming readings")
        }
        return (event, state)
    }

    private func step(_ path: IngestPath, farEnd: pid_t?, rate: Int) async throws -> IngestStep {
        let listener = try await House.client(house.broker, "bench-ingest-listener")
        try await listener.subscribe(path.listened, qos: .atMostOnce)
        let publisher = try await House.client(house.broker, "bench-ingest-publisher")
        let received = Atomic<Int>(0)
        let last = Atomic<UInt64>(0)
        let reader = Task {
            var iterator = listener.messages.makeAsyncIterator()
            while let batch = await iterator.nextBatch() {
                received.add(batch.count, ordering: .relaxed)
                last.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            }
        }
        let total = Int(Double(rate) * stepSeconds)
        let pids = (farEnd: farEnd, broker: house.broker.processID, bench: getpid())
        let before = (
            farEnd: pids.farEnd.flatMap(ProcessStats.init), broker: ProcessStats(pid: pids.broker), bench: ProcessStats(pid: pids.bench)
        )
        let started = ContinuousClock.now
        // On a thread of its own: pacing must not hold one of the cooperative pool's few threads.
        let (sent, publishedRate, ended) = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.publishPaced(publisher, path, rate: rate, total: total)) }.start()
        }
        var previous = -1
        var quiet = ContinuousClock.now
        while received.load(ordering: .relaxed) < sent, ContinuousClock.now - quiet < .seconds(maxDrain + 1) {
            try await Task.sleep(for: .milliseconds(20))
            let now = received.load(ordering: .relaxed)
            if now != previous { previous = now; quiet = .now }
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        func share(_ before: ProcessStats?, _ pid: pid_t?) -> Double? {
            guard let before, let pid, let after = ProcessStats(pid: pid) else { return nil }
            return (after.cpuSeconds - before.cpuSeconds) / seconds * 100
        }
        let cpu = (share(before.farEnd, pids.farEnd), share(before.broker, pids.broker), share(before.bench, pids.bench))
        reader.cancel()
        await publisher.shutdown()
        await listener.shutdown()
        let drain = Double(Int64(last.load(ordering: .relaxed)) - Int64(ended)) / 1e9
        return IngestStep(
            rate: rate, sent: sent, received: received.load(ordering: .relaxed), publishedRate: publishedRate, drain: max(0, drain),
            cpu: cpu)
    }

    /// Publishes from this thread at a steady rate; what was sent, at what rate, and when it ended.
    private func publishPaced(_ client: MQTTClient, _ path: IngestPath, rate: Int, total: Int) -> (Int, Double, UInt64) {
        let sensors = house.sensors
        let topics = sensors.map(path.topic)
        var sent = 0
        let start = DispatchTime.now().uptimeNanoseconds
        counters.withLock { counters in
            var i = 0
            while i < total {
                let due = min(total, Int((DispatchTime.now().uptimeNanoseconds - start) * UInt64(rate) / 1_000_000_000))
                while i < due {
                    let s = i % sensors.count
                    counters[s] += 1
                    let payload =
                        #"{"battery":90,"humidity":50,"linkquality":120,"temperature":\#(house.reading(counters[s], sensor: s)),"voltage":2985}"#
                    if (try? client.publish(topics[s], Array(payload.utf8))) != nil { sent += 1 }
                    i += 1
                }
                usleep(200)
            }
        }
        let ended = DispatchTime.now().uptimeNanoseconds
        return (sent, Double(sent) / max(1e-9, Double(ended - start) / 1e9), ended)
    }
}
