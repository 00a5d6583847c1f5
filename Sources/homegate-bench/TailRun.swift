import Foundation
import Histogram
import JSON
import Mosquitto
import Synchronization

/// Latencies of one path in microseconds, with every sample over the stall threshold and when it came.
struct PathFigures {
    var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
    var lost = 0
    /// Seconds since the run began, and the latency in milliseconds.
    var stalls: [(at: Double, ms: Double)] = []

    func ms(_ percentile: Double) -> Double {
        histogram.totalCount == 0 ? .nan : Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    var maxMs: Double { histogram.totalCount == 0 ? .nan : Double(histogram.max) / 1000 }

    /// Stalls closer than a second to each other are one episode; the gaps between episodes show a period.
    var episodes: [Double] {
        var starts: [Double] = []
        for stall in stalls where starts.last.map({ stall.at - $0 > 1 }) ?? true { starts.append(stall.at) }
        return starts
    }
}

/// One run of the tail benchmark: the automation path through homegate and the echo floor, probed
/// alternately at a fixed gap on one broker under one background load.
struct TailRun {
    var background: Int
    var backgroundRate: Double
    var gateway: PathFigures
    var floor: PathFigures
    var cpuPercent: Double?
    var rssKiB: Int?
    var peakRSSKiB: Int?
}

struct TailProbe {
    let house: House
    /// The probes take turns over these, so no trigger or light comes near the gateway's loop limit.
    let pairs: [ProbePair]
    let seconds: Double
    let gap: Duration
    let stallMs: Double

    var floorIn: String { "bench/echo/\(pairs[0].motion)" }
    var floorOut: String { "bench/echo/\(pairs[0].light)/set" }

    /// Waits until the echo process answers, so the first measured sample is not its start-up.
    func waitForEcho() async throws {
        try await house.waitForAnswer(publishing: floorIn, #"{"occupancy":false}"#, on: floorOut, from: "the echo client")
    }

    func run(background: Int) async throws -> TailRun {
        let lightOfSet = Dictionary(uniqueKeysWithValues: pairs.map { ("zigbee2mqtt/\($0.light)/set", $0.light) })
        let listener = try await House.client(house.broker, "bench-tail-listener")
        for topic in Array(lightOfSet.keys) + [floorOut] { try await listener.subscribe(topic, qos: .atMostOnce) }
        let publisher = try await House.client(house.broker, "bench-tail-publisher")

        let began = DispatchTime.now().uptimeNanoseconds
        let sent = Mutex<[String: UInt64]>([:])
        let figures = Mutex<(gateway: PathFigures, floor: PathFigures)>((PathFigures(), PathFigures()))
        let stallMs = self.stallMs
        let reader = Task {
            for await message in listener.messages {
                let arrived = DispatchTime.now().uptimeNanoseconds
                let light = lightOfSet[message.topic]
                let isGateway = light != nil
                let key: String
                if let light {
                    key = "gateway|\(light)|" + ((try? JSONValue(parsing: message.payload))?["state"]?.stringValue ?? "?")
                } else {
                    key = "floor|" + message.payloadString
                }
                guard let start = sent.withLock({ $0.removeValue(forKey: key) }) else { continue }
                let micros = (arrived - start) / 1000
                let ms = Double(micros) / 1000
                figures.withLock { all in
                    func add(_ path: inout PathFigures) {
                        _ = path.histogram.record(micros)
                        if ms >= stallMs { path.stalls.append((Double(start - began) / 1e9, ms)) }
                    }
                    if isGateway { add(&all.gateway) } else { add(&all.floor) }
                }
            }
        }
        let load = background > 0 ? try await BackgroundLoad.start(house, perSecond: background) : nil
        let before = ProcessStats(pid: house.gateway)

        var lost = (gateway: 0, floor: 0)
        // Whole rounds of on and off per pair: each pair ends a run with motion off, so the next run's
        // first probe (motion on) is a change that fires, not a repeat that fires nothing.
        let probes = Int(seconds / (Double(gap.components.attoseconds) / 1e18 + Double(gap.components.seconds)))
        let total = max(probes / (2 * pairs.count), 1) * 2 * pairs.count
        let clock = ContinuousClock()
        let start = clock.now
        for k in 0..<total {
            let pair = pairs[k % pairs.count]
            let motion = (k / pairs.count) % 2 == 0
            let payload = #"{"occupancy":\#(motion)}"#
            // The floor half a gap before the gateway, so the two never queue behind each other.
            try await clock.sleep(until: start + gap * k)
            if sent.withLock({ $0.updateValue(DispatchTime.now().uptimeNanoseconds, forKey: "floor|" + payload) != nil }) {
                lost.floor += 1
            }
            try publisher.publish(floorIn, payload)
            try await clock.sleep(until: start + gap * k + gap / 2)
            if sent.withLock({
                $0.updateValue(DispatchTime.now().uptimeNanoseconds, forKey: "gateway|\(pair.light)|" + (motion ? "ON" : "OFF")) != nil
            }) {
                lost.gateway += 1
            }
            try publisher.publish("zigbee2mqtt/\(pair.motion)", payload)
        }
        try await Task.sleep(for: .seconds(1))
        let after = ProcessStats(pid: house.gateway)
        let elapsed = clock.now - start
        let backgroundSent = await load?.stop() ?? (0, 0)
        for key in sent.withLock({ Array($0.keys) }) {
            if key.hasPrefix("gateway") { lost.gateway += 1 } else { lost.floor += 1 }
        }
        reader.cancel()
        await publisher.shutdown()
        await listener.shutdown()
        var result = figures.withLock { $0 }
        result.gateway.lost = lost.gateway
        result.floor.lost = lost.floor
        let window = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return TailRun(
            background: background, backgroundRate: backgroundSent.1, gateway: result.gateway, floor: result.floor,
            cpuPercent: before.flatMap { b in after.map { ($0.cpuSeconds - b.cpuSeconds) / window * 100 } },
            rssKiB: after?.rssKiB, peakRSSKiB: after?.peakRSSKiB)
    }
}
