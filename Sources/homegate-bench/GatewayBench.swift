import ArgumentParser
import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Simulator
import Synchronization

/// Gateway path against broker-only path, in one run, on one private broker.
struct GatewayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract:
            "1,000 simulated Zigbee2MQTT devices: sustained rate, latency, CPU, memory and start-up of the gateway next to the broker alone."
    )

    @Option var devices = 1_000
    @Option(help: "Messages per flood (throughput).") var flood = 50_000
    @Option(help: "Messages per second for the latency runs.") var rate = 1_000
    @Option(help: "Seconds per latency run.") var seconds = 5.0
    @Flag(help: "Leave mosquitto's sockets with Nagle's algorithm on (its default): adds about 10 ms per extra hop.")
    var brokerNagle = false

    func run() async throws {
        let broker = try TestBroker(
            .init(
                extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 0"] + (brokerNagle ? [] : ["set_tcp_nodelay true"]),
                verboseLog: false))
        defer { withExtendedLifetime(broker) {} }
        let house = try await House(broker: broker, devices: devices)
        say(
            "house: \(devices) devices (\(house.sensors.count) of them temperature sensors used for load), bridge/devices \(house.inventoryBytes / 1024) KiB"
        )

        let startup = try await house.startGateway()
        say("gateway start-up to \(house.accessoryCount) accessories published: \(format(startup * 1000, 0)) ms")

        let brokerFlood = try await house.flood(count: flood, gateway: false)
        let gatewayFlood = try await house.flood(count: flood, gateway: true)
        let brokerLatency = try await house.latency(rate: rate, seconds: seconds, gateway: false)
        let before = ProcessStats(pid: house.gateway)
        let gatewayLatency = try await house.latency(rate: rate, seconds: seconds, gateway: true)
        let after = ProcessStats(pid: house.gateway)
        house.stop()

        say("")
        say("| path | flood msgs/s (\(flood), none lost) | p50 ms | p99 ms | max ms (at \(rate)/s) |")
        say("| --- | --- | --- | --- | --- |")
        for (name, f, l) in [
            ("broker only (publish → subscriber)", brokerFlood, brokerLatency),
            ("gateway (device publish → event)", gatewayFlood, gatewayLatency),
        ] {
            say(
                "| \(name) | \(Int(f.rate)) (\(f.received)/\(f.sent)) | \(format(l.percentile(0.5), 3)) | \(format(l.percentile(0.99), 3)) | \(format(l.max, 3)) |"
            )
        }
        say("")
        say("gateway / broker-only sustained rate: \(format(gatewayFlood.rate / brokerFlood.rate * 100, 0))% (target ≥ 25%)")
        say("added latency at p50: \(format(gatewayLatency.percentile(0.5) - brokerLatency.percentile(0.5), 3)) ms (target ≤ 0.5 ms)")
        if let before, let after {
            let cpu = after.cpuSeconds - before.cpuSeconds
            say(
                "gateway CPU at \(rate) msgs/s: \(format(cpu / seconds * 100, 1))% of one core (\(format(cpu / Double(max(1, gatewayLatency.samples.count)) * 1e6, 1)) µs per message)"
            )
            say(
                "gateway peak RSS: \(format(Double(after.peakRSSKiB) / 1024, 1)) MB (target ≤ 50 MB); now \(format(Double(after.rssKiB) / 1024, 1)) MB"
            )
        }
        say("gateway start-up with \(devices) devices: \(format(startup * 1000, 0)) ms (target < 1000 ms)")
    }
}
