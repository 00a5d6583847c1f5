import ArgumentParser
import Foundation
import MosquittoTesting

/// The tail of the automation path under steady background load, next to a broker-only echo in the
/// same run; then how many readings per second homegate turns into events, next to the broker alone.
struct TailBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Tail latency of sensor publish → trigger → action set → /set under background load, next to an echo client (the floor); "
            + "p50 to p99.9, max, stalls with their times, RSS and CPU; then the ingest ceiling next to a no-work relay and the broker alone."
    )

    @Option(help: "Devices in the simulated house; every other one is a temperature sensor that carries the background load.") var devices =
        400
    @Option var triggers = 300
    @Option(help: "Background readings per second: one run for each, comma separated.") var rates = "0,1000,2000"
    @Option(help: "Seconds per run.") var seconds = 60.0
    @Option(help: "Milliseconds between probes on each path.") var gap = 50
    @Option(name: .customLong("stall-ms"), help: "A sample at least this late is listed as a stall.") var stallMs = 5.0
    @Option(name: .customLong("step-seconds"), help: "Seconds per step of the ingest ceiling; 0 skips it.") var stepSeconds = 3.0
    @Option(name: .customLong("max-rate"), help: "The ingest ceiling's highest step.") var maxRate = 512_000
    @Option(name: .customLong("max-behind"), help: "Seconds a step may end behind and still count as kept.") var maxDrain = 0.25
    @Flag(help: "A stock broker: leave mosquitto's sockets with Nagle's algorithm on (no set_tcp_nodelay).") var brokerNagle = false

    func run() async throws {
        let rateList = try rates.split(separator: ",").map { part -> Int in
            guard let rate = Int(part.trimmingCharacters(in: .whitespaces)), rate >= 0 else {
                throw ValidationError("--rates: '\(part)' is not a rate")
            }
            return rate
        }
        say("machine load average at start (other work on the machine skews tails): \(loadAverage())")
        say(
            "broker: \(brokerNagle ? "stock, Nagle's algorithm on its sockets" : "set_tcp_nodelay true"); gateway: \(House.gatewayExecutable)"
        )
        let broker = try TestBroker(
            .init(
                extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 0"] + (brokerNagle ? [] : ["set_tcp_nodelay true"]),
                verboseLog: false))
        defer { withExtendedLifetime(broker) {} }
        let house = try await House(broker: broker, devices: devices)
        let automations = try BenchAutomations(devices: house.devices, triggers: triggers, actionSets: 100, timers: 10)
        try automations.write(to: house.database)
        _ = try await house.startGateway(logLevel: "info")
        say(
            "house: \(devices) devices (\(house.sensors.count) temperature sensors carry the background), \(triggers) triggers; "
                + "probe: occupancy → trigger → action set → /set over \(automations.pairs.count) motion sensors and lights taking turns "
                + "(the gateway stops a trigger firing over 30 times in 10 s), every \(gap) ms, floor the same through an echo client")
        if 1_000 / Double(gap) > automations.maxProbeRate {
            say("note: a probe every \(gap) ms over \(automations.pairs.count) pairs comes near the loop limit; the gateway may stop them")
        }

        let probe = TailProbe(house: house, pairs: automations.pairs, seconds: seconds, gap: .milliseconds(gap), stallMs: stallMs)
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
        let echo = try spawn(
            [executable, "echo", "--port", "\(broker.port)", "--from", probe.floorIn, "--to", probe.floorOut],
            output: house.directory.appendingPathComponent("echo.log").path)
        defer { kill(echo, SIGTERM); var status: Int32 = 0; waitpid(echo, &status, 0) }
        try await probe.waitForEcho()
        try await Task.sleep(for: .seconds(2))  // start-up's own writes settle first

        var runs: [TailRun] = []
        for rate in rateList {
            let run = try await probe.run(background: rate)
            runs.append(run)
            say("")
            TailReport.run(run, seconds: seconds, gap: gap, stallMs: stallMs)
        }

        // Memory for the targets before the ingest steps, which push past the ceiling on purpose.
        let settled = ProcessStats(pid: house.gateway)
        var ingest: [IngestPath: IngestStep] = [:]
        if stepSeconds > 0 {
            let ceiling = IngestCeiling(house: house, stepSeconds: stepSeconds, maxDrain: maxDrain)
            let sizes = try await ceiling.prime()
            let relay = try spawn(
                [
                    executable, "relay", "--port", "\(broker.port)", "--from", IngestPath.relayIn, "--events", IngestPath.relayEvents,
                    "--states", IngestPath.relayStates, "--event-bytes", "\(sizes.eventBytes)", "--state-bytes", "\(sizes.stateBytes)",
                ],
                output: house.directory.appendingPathComponent("relay.log").path)
            defer { kill(relay, SIGTERM); var status: Int32 = 0; waitpid(relay, &status, 0) }
            try await house.waitForAnswer(
                publishing: "\(IngestPath.relayIn)/ready", "{}", on: "\(IngestPath.relayEvents)/ready", from: "homegate-bench relay")
            var steps: [(IngestPath, [IngestStep])] = []
            for path in IngestPath.allCases {
                let farEnd: pid_t? =
                    switch path {
                    case .gateway: house.gateway
                    case .relay: relay
                    case .broker: nil
                    }
                let climbed = try await ceiling.climb(path, farEnd: farEnd, from: 2_000, limit: maxRate)
                steps.append((path, climbed.steps))
                ingest[path] = climbed.ceiling
            }
            say("")
            TailReport.ingest(steps, sizes: sizes, stepSeconds: stepSeconds)
        }
        let afterIngest = stepSeconds > 0 ? ProcessStats(pid: house.gateway) : nil
        house.stop()
        say("")
        TailReport.targets(runs, ingest: ingest, devices: devices, settled: settled, afterIngest: afterIngest)
        say("machine load average at the end: \(loadAverage())")
    }
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}
