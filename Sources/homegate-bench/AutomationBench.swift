import ArgumentParser
import Foundation
import GatewayCore
import JSON
import Mosquitto
import MosquittoTesting
import Persistence
import Synchronization

/// A sensor publish through a trigger and an action set to a device's `/set`, next to the broker
/// alone in the same run, idle and under unrelated load; and the trigger engine's own rate.
struct AutomationBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "automation",
        abstract:
            "10,000 triggers over 1,000 accessories: sensor publish → action set /set latency, idle and under load; events evaluated per second."
    )

    @Option var devices = 1_000
    @Option var triggers = 10_000
    @Option(name: .customLong("action-sets")) var actionSets = 1_000
    @Option var timers = 500
    @Option(help: "Samples per second on each path.") var rate = 20
    @Option(help: "Seconds per run.") var seconds = 10.0
    @Option(help: "Unrelated temperature readings per second in the second run.") var background = 2_000
    @Option(help: "Characteristic changes fed to the in-process trigger engine.") var engineChanges = 1_000_000

    func run() async throws {
        let began = ContinuousClock.now
        say("machine load average at start (other work on the machine skews tails): \(loadAverage())")
        let broker = try TestBroker(
            .init(extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 0", "set_tcp_nodelay true"], verboseLog: false))
        defer { withExtendedLifetime(broker) {} }
        let house = try await House(broker: broker, devices: devices)
        let automations = try BenchAutomations(devices: house.devices, triggers: triggers, actionSets: actionSets, timers: timers)
        try automations.write(to: house.database)
        say(
            "house: \(devices) devices; stored \(automations.stored.actionSets.count) action sets and \(automations.stored.triggers.count) triggers "
                + "(\(automations.temperatureTriggers) temperature thresholds over \(house.sensors.count) sensors, \(automations.timerTriggers) timers in 2099, "
                + "\(2 * automations.pairs.count) measured: \(automations.pairs.count) motion sensors → \(automations.pairs.count) lights on/off, taking turns)"
        )

        let load = try automations.timeLoad(from: house.database)
        say(
            "start-up parts, in this process: reading the stored home back \(format(load.store, 0)) ms, loading its triggers into an engine \(format(load.engine, 0)) ms"
        )
        let engine = try EngineThroughput.measure(triggers: triggers, characteristics: 1_000, changes: engineChanges)
        say("engine: \(engineChanges) changes in \(format(engine.seconds, 2)) s, \(engine.fired) fired")

        let startup = try await house.startGateway(logLevel: "info")
        say("gateway start-up to \(house.accessoryCount) accessories published, with \(triggers) triggers: \(format(startup * 1000, 0)) ms")
        try await verifyLoaded(house, automations)

        // Let start-up work (retained states, the first store writes) settle before measuring.
        try await Task.sleep(for: .seconds(2))
        let (fired, counting) = try await FiredCounter.start(house)
        let idle = try await house.automationLatency(automations, rate: rate, seconds: seconds, background: 0)
        let loaded = try await house.automationLatency(automations, rate: rate, seconds: seconds, background: background)
        let firings = await fired.stop(counting)
        house.stop()
        let warnings =
            (try? String(contentsOf: house.log, encoding: .utf8))?.split(separator: "\n").filter { line in
                // "<time> <level> <component>: …": the level, not a word in the text (an info line may list `error_state`).
                let level = line.split(separator: " ", maxSplits: 2).dropFirst().first
                return level == "warning" || level == "error" || level == "critical"
            } ?? []

        report(idle: idle, loaded: loaded, engine: engine)
        say("")
        say(
            "first /set from the measured trigger: \(idle.firstSet ?? "none") (action set writes \(automations.light)/lightbulb/on true/false); "
                + "payloads that were not the action set's value: \(idle.wrongPayloads + loaded.wrongPayloads)")
        let measured = automations.measuredTriggers
        let others = firings.filter { !measured.contains($0.key) }
        say(
            "triggers fired (homegate/event/trigger/+): measured \(measured.map { firings[$0] ?? 0 }.reduce(0, +)); "
                + "any other: \(others.values.reduce(0, +))\(others.isEmpty ? "" : " (" + others.keys.sorted().prefix(5).joined(separator: ", ") + ")")"
        )
        say("gateway log: \(warnings.count) warning/error lines\(warnings.first.map { "; first: \($0)" } ?? "")")
        say("machine load average at the end: \(loadAverage())")
        let elapsed = ContinuousClock.now - began
        say("whole run: \(elapsed.components.seconds) s")
    }

    /// The gateway must hold every stored trigger, and every path they watch or write must exist.
    private func verifyLoaded(_ house: House, _ automations: BenchAutomations) async throws {
        let log = (try? String(contentsOf: house.log, encoding: .utf8)) ?? ""
        let logged = log.split(separator: " ").first { $0.hasPrefix("triggers=") }.map(String.init) ?? "no triggers= in the log"
        let client = try await House.client(house.broker, "bench-verify")
        try await client.subscribe("homegate/response/trigger/list")
        var messages = client.messages.makeAsyncIterator()
        let asked = ContinuousClock.now
        try client.publish("homegate/request/trigger/list", #"{"transaction":"bench"}"#)
        var listed: Int?
        var listBytes = 0
        var answered = Duration.zero
        while let message = await messages.next() {
            answered = ContinuousClock.now - asked
            let json = try? JSONValue(parsing: message.payload)
            guard json?["transaction"] == "bench" else { continue }
            listed = json?["data"]?["triggers"]?.arrayValue?.count
            listBytes = message.payload.count
            break
        }
        try await client.subscribe("homegate/accessories")
        let tree = await messages.next().flatMap { try? JSONValue(parsing: $0.payload) }
        let missing = tree.map { automations.missingPaths(in: $0) }
        await client.shutdown()
        say(
            "gateway loaded: log \(logged); trigger/list answered \(listed ?? 0) triggers (\(listBytes / 1024) KiB) in "
                + "\(answered.components.seconds * 1000 + answered.components.attoseconds / 1_000_000_000_000_000) ms; "
                + "paths watched or written but missing from the tree: \(missing?.count ?? -1)\(missing?.first.map { " (first: \($0))" } ?? "")"
        )
        guard listed == triggers, missing?.isEmpty == true else {
            throw BenchError("the gateway did not load the benchmark's triggers as stored; see \(house.log.path)")
        }
    }

    private func report(idle: AutomationRun, loaded: AutomationRun, engine: EngineThroughput) {
        let bg = "\(background)/s background"
        say("")
        say("| run (\(rate) samples/s per path, \(format(seconds, 0)) s) | path | samples (lost) | p50 ms | p99 ms | max ms |")
        say("| --- | --- | --- | --- | --- | --- |")
        for (name, run) in [("idle", idle), (bg, loaded)] {
            for (path, l, key) in [
                ("broker only (publish → subscriber)", run.broker, "broker"),
                ("gateway event only (sensor publish → homegate/event)", run.event, "event"),
                ("gateway automation (sensor publish → trigger → action set → /set)", run.gateway, "gateway"),
            ] {
                say(
                    "| \(name) | \(path) | \(l.samples.count) (\(run.lost[key] ?? 0)) | \(format(l.percentile(0.5), 3)) | \(format(l.percentile(0.99), 3)) | \(format(l.max, 3)) |"
                )
            }
        }
        say("")
        say("| in-process trigger engine (\(triggers) triggers over 1,000 characteristics, nothing fires) | per second |")
        say("| --- | --- |")
        say("| characteristic changes | \(Int(engine.changesPerSecond)) |")
        say("| triggers looked at for changes (`engine.evaluations`, triggers looked at) | \(Int(engine.evaluationsPerSecond)) |")
        say("")
        let addedIdle = idle.gateway.percentile(0.5) - idle.broker.percentile(0.5)
        let addedLoaded = loaded.gateway.percentile(0.5) - loaded.broker.percentile(0.5)
        let p99 = loaded.gateway.percentile(0.99)
        say("added at p50, idle: \(format(addedIdle, 3)) ms — \(verdict(addedIdle <= 1, "≤ 1 ms"))")
        say("added at p50, with \(bg): \(format(addedLoaded, 3)) ms — \(verdict(addedLoaded <= 1, "≤ 1 ms"))")
        say(
            "gateway p99 with \(bg): \(format(p99, 3)) ms — \(verdict(p99 < 5, "< 5 ms"))"
                + ((loaded.lost["gateway"] ?? 0) > 0 ? "; \(loaded.lost["gateway"]!) samples never arrived, so p99 understates" : ""))
        say("background sent: \(loaded.backgroundSent) readings at \(Int(loaded.backgroundRate))/s (asked \(background)/s)")
        let window = seconds + 1
        for (name, run) in [("idle", idle), (bg, loaded)] {
            guard let cpu = run.cpuSeconds else { continue }
            say(
                "gateway CPU, \(name): \(format(cpu / window * 100, 1))% of one core; RSS \(format(Double(run.rssKiB ?? 0) / 1024, 1)) MB, "
                    + "peak \(format(Double(run.peakRSSKiB ?? 0) / 1024, 1)) MB")
        }
        if let busy = loaded.cpuSeconds, let quiet = idle.cpuSeconds, loaded.backgroundRate > 0 {
            // The samples cost the same in both runs, so the difference is what the background costs.
            say(
                "gateway CPU per background reading: \(format((busy - quiet) / (loaded.backgroundRate * window) * 1e6, 1)) µs "
                    + "(the in-process engine: \(format(1e6 / engine.changesPerSecond, 2)) µs per change with \(triggers / 1_000) triggers on it)"
            )
        }
    }

    private func verdict(_ met: Bool, _ target: String) -> String { met ? "meets the target (\(target))" : "MISSES the target (\(target))" }
}

/// Counts `fired` events per trigger, to show that only the measured triggers fire.
final class FiredCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    private let client: MQTTClient

    private init(client: MQTTClient) { self.client = client }

    static func start(_ house: House) async throws -> (FiredCounter, Task<Void, Never>) {
        let client = try await House.client(house.broker, "bench-fired")
        try await client.subscribe("homegate/event/trigger/+")
        let counter = FiredCounter(client: client)
        return (counter, Task { await counter.count() })
    }

    private func count() async {
        for await message in client.messages {
            guard let json = try? JSONValue(parsing: message.payload), json["change"] == "fired", let id = json["id"]?.stringValue else {
                continue
            }
            counts.withLock { $0[id, default: 0] += 1 }
        }
    }

    func stop(_ reader: Task<Void, Never>) async -> [String: Int] {
        try? await Task.sleep(for: .milliseconds(200))
        reader.cancel()
        await client.shutdown()
        return counts.withLock { $0 }
    }
}
