import ArgumentParser
import Foundation
import Histogram
import MosquittoTesting

/// The live event stream under load: many WebSocket clients of `/api/events` while devices
/// publish readings, next to the MQTT event path and the broker alone, in one run.
struct StreamBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract:
            "WebSocket clients of /api/events while devices publish readings: events delivered per second, latency from device publish "
            + "to client next to the MQTT event path, and the gateway's CPU and RSS with and without the clients; then the same clients "
            + "of a fan-out that does nothing but write.")

    @Option var devices = 1_000
    @Option(help: "WebSocket clients: one run for each count, comma separated (the last one is held to the targets).") var clients =
        "1,50,200"
    @Option(help: "Clients that also time each event (spread over the connection order); the rest only count.") var timed = 10
    @Option(help: "Readings per second, each one an event.") var rate = 1_000
    @Option(help: "Seconds per run.") var seconds = 10.0
    @Option(help: "The clients' filter, as the query of /api/events (empty: every event).") var query = ""

    struct StreamRun {
        var clients: Int
        var mqtt: Latencies
        var stats: Stats?
        var timings: Histogram<UInt64>
        var delivered = 0
        var expected = 0
        var cutOff = 0
        var benchCPU = 0.0

        func ms(_ p: Double) -> Double { timings.totalCount == 0 ? .nan : Double(timings.valueAtPercentile(p)) / 1000 }
    }

    func run() async throws {
        let counts = try clients.split(separator: ",").map { part -> Int in
            guard let count = Int(part.trimmingCharacters(in: .whitespaces)), count > 0 else {
                throw ValidationError("--clients: '\(part)' is not a count of clients")
            }
            return count
        }
        guard timed > 0, rate > 0, seconds > 0 else { throw ValidationError("--timed, --rate and --seconds must be positive") }
        say("machine load average at start (other work on the machine skews tails): \(loadAverage())")
        let broker = try TestBroker(
            .init(extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 0", "set_tcp_nodelay true"], verboseLog: false))
        defer { withExtendedLifetime(broker) {} }
        let house = try await House(broker: broker, devices: devices)
        _ = try await house.startGateway(logLevel: "info", http: "127.0.0.1:0")
        let port = try await house.httpPort()
        let path = "/api/events" + (query.isEmpty ? "" : "?" + query)
        say(
            "house: \(devices) devices (\(house.sensors.count) temperature sensors publish \(rate) readings/s, each an event), "
                + "HTTP on 127.0.0.1:\(port); clients on \(path), up to \(timed + 1) of them timing, the rest counting")

        let floor = try await house.latency(rate: rate, seconds: seconds, gateway: false)
        let alone = try await measured(house.gateway) { try await house.latency(rate: rate, seconds: seconds, gateway: true) }
        var runs: [StreamRun] = []
        for count in counts {
            let sockets = try EventSockets(port: port, path: path, count: count, timed: timed)
            let run = try await clientsRun(house, sockets, of: house.gateway, named: "the gateway")
            sockets.close()
            runs.append(run)
            say("\(count) clients: \(run.delivered) of \(run.expected) events received, WebSocket p50 \(format(run.ms(50), 3)) ms")
            try await Task.sleep(for: .seconds(1))  // the connections closed before the next run
        }
        // The floor under the last count: the same clients of a fan-out that does nothing but write.
        var floorRun: StreamRun?
        if let count = counts.last {
            let listen = try freePort()
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
            let fanOut = try spawn(
                [executable, "fanout", "--port", "\(broker.port)", "--listen", "\(listen)"],
                output: house.directory.appendingPathComponent("fanout.log").path)
            defer { kill(fanOut, SIGTERM); var status: Int32 = 0; waitpid(fanOut, &status, 0) }
            let deadline = ContinuousClock.now + .seconds(10)
            while !canConnect(port: listen) {
                guard ContinuousClock.now < deadline else {
                    throw BenchError("homegate-bench fanout did not listen on \(listen) within 10 s")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let sockets = try EventSockets(port: Int(listen), path: "/api/events", count: count, timed: timed)
            let run = try await clientsRun(house, sockets, of: fanOut, named: "homegate-bench fanout")
            sockets.close()
            floorRun = run
            say(
                "no-work fan-out, \(count) clients: \(run.delivered) of \(run.expected) events received, WebSocket p50 \(format(run.ms(50), 3)) ms"
            )
        }
        house.stop()

        say("")
        say("### \(rate) readings/s for \(format(seconds, 0)) s per run; latency from the device's publish")
        say("")
        say(
            "| run | MQTT event p50 ms | p99 ms | WebSocket p50 ms | p99 ms | max ms | WebSocket events received (cut off) | gateway CPU % of one core | gateway RSS MB (peak) | bench CPU % |"
        )
        say("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        say(
            "| broker only (publish → subscriber) | \(format(floor.percentile(0.5), 3)) | \(format(floor.percentile(0.99), 3)) | — | — | — | — | — | — | — |"
        )
        func stats(_ stats: Stats?) -> String {
            stats.map { "\(format($0.cpuPercent, 1)) | \(format($0.rssMB, 1)) (\(format($0.peakMB, 1)))" } ?? "— | —"
        }
        say(
            "| gateway, no WebSocket client | \(format(alone.latencies.percentile(0.5), 3)) | \(format(alone.latencies.percentile(0.99), 3)) | — | — | — | — | \(stats(alone.stats)) | — |"
        )
        for run in runs {
            say(
                "| gateway, \(run.clients) WebSocket client\(run.clients == 1 ? "" : "s") | \(format(run.mqtt.percentile(0.5), 3)) | \(format(run.mqtt.percentile(0.99), 3)) | "
                    + "\(format(run.ms(50), 3)) | \(format(run.ms(99), 3)) | \(format(run.timings.totalCount == 0 ? .nan : Double(run.timings.max) / 1000, 3)) | "
                    + "\(run.delivered) of \(run.expected) (\(run.cutOff)) | \(stats(run.stats)) | \(format(run.benchCPU, 1)) |")
        }
        if let run = floorRun {
            say(
                "| no-work fan-out, \(run.clients) WebSocket clients (CPU and RSS: its own process) | \(format(run.mqtt.percentile(0.5), 3)) | "
                    + "\(format(run.mqtt.percentile(0.99), 3)) | \(format(run.ms(50), 3)) | \(format(run.ms(99), 3)) | "
                    + "\(format(run.timings.totalCount == 0 ? .nan : Double(run.timings.max) / 1000, 3)) | \(run.delivered) of \(run.expected) (\(run.cutOff)) | "
                    + "\(stats(run.stats)) | \(format(run.benchCPU, 1)) |")
        }
        guard let last = runs.last else { return }
        say("")
        say("events delivered to WebSocket clients with \(last.clients) clients: \(Int(Double(last.delivered) / seconds))/s")
        say("")
        say("### targets (\(last.clients) clients)")
        let added = last.ms(50) - last.mqtt.percentile(0.5)
        say("WebSocket p50 over the MQTT event path's, same run: \(format(added, 3)) ms — \(verdict(added <= 1)) (≤ 1 ms)")
        if let with = last.stats, let without = alone.stats {
            let cost = with.cpuPercent - without.cpuPercent
            say(
                "gateway CPU the \(last.clients) clients add at \(rate) readings/s: \(format(cost, 1))% of one core — \(verdict(cost < 30)) (< 30%); "
                    + "RSS \(format(with.rssMB - without.rssMB, 1)) MB more")
        }
        if let cpu = floorRun?.stats?.cpuPercent {
            say(
                "  for scale, not a target: a fan-out that only writes each event to each of the \(last.clients) clients "
                    + "(homegate-bench fanout) takes \(format(cpu, 1))% of one core")
        }
        say("machine load average at the end: \(loadAverage())")
    }

    struct Stats {
        var cpuPercent: Double
        var rssMB: Double
        var peakMB: Double
    }

    /// One measured run with `sockets` connected to the server `pid` (the gateway or the fan-out):
    /// readings until every client has had an event (each is subscribed), then `seconds` of
    /// `rate` readings, the server's CPU and RSS and the benchmark's own CPU over them.
    private func clientsRun(_ house: House, _ sockets: EventSockets, of pid: pid_t, named server: String) async throws -> StreamRun {
        let ready = ContinuousClock.now + .seconds(10)
        while sockets.clientsHeard < sockets.count {
            guard ContinuousClock.now < ready else {
                throw BenchError(
                    "only \(sockets.clientsHeard) of \(sockets.count) WebSocket clients had an event from \(server) within 10 s")
            }
            _ = try await house.latency(rate: 50, seconds: 0.2, gateway: true)
        }
        let bench = processCPUSeconds()
        let before = sockets.received
        let started = ContinuousClock.now
        let measured = try await measured(pid) {
            try await house.latency(rate: rate, seconds: seconds, gateway: true) { sockets.published($0, at: $1) }
        }
        let window = (ContinuousClock.now - started) / .seconds(1)
        var run = StreamRun(clients: sockets.count, mqtt: measured.latencies, stats: measured.stats, timings: sockets.takeTimings())
        run.delivered = sockets.received - before
        run.expected = measured.latencies.samples.count * sockets.count
        run.cutOff = sockets.closedByGateway
        run.benchCPU = (processCPUSeconds() - bench) / window * 100
        return run
    }

    /// A latency run and the CPU of process `pid` over it and its RSS after it.
    private func measured(_ pid: pid_t, _ body: () async throws -> Latencies) async throws -> (latencies: Latencies, stats: Stats?) {
        let before = ProcessStats(pid: pid)
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await body()
        let elapsed = (clock.now - start) / .seconds(1)
        let after = ProcessStats(pid: pid)
        guard let before, let after else { return (latencies, nil) }
        return (
            latencies,
            Stats(
                cpuPercent: (after.cpuSeconds - before.cpuSeconds) / elapsed * 100, rssMB: Double(after.rssKiB) / 1024,
                peakMB: Double(after.peakRSSKiB) / 1024)
        )
    }

    private func verdict(_ met: Bool) -> String { met ? "meets the target" : "MISSES the target" }
}
