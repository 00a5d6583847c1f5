import ArgumentParser
import Foundation
import Mosquitto
import MosquittoTesting
import Synchronization

struct MQTTReceive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt-receive",
        abstract: "Receive rate of the Swift client against a C-callback-only subscriber, same broker, same flood.")

    @Option var messages = 200_000
    @Option var payloadBytes = 100
    @Option(help: "Rounds per path; the median is reported.") var rounds = 3

    struct Result { var received: Int; var seconds: Double; var cpuSeconds: Double }

    func run() async throws {
        let broker = try TestBroker(.init(extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 0"], verboseLog: false))
        defer { withExtendedLifetime(broker) {} }
        var c: [Result] = []
        var swift: [Result] = []
        for round in 1...rounds {
            c.append(try await measureC(port: broker.port))
            swift.append(try await measureSwift(port: broker.port))
            print("round \(round): C \(Int(rate(c.last!))) msg/s, Swift \(Int(rate(swift.last!))) msg/s")
        }
        let cMedian = median(c)
        let swiftMedian = median(swift)
        print("")
        print("| path (\(messages) msgs, \(payloadBytes) B, QoS 0, median of \(rounds)) | received | msg/s | CPU µs/msg |")
        print("| --- | --- | --- | --- |")
        for (name, r) in [("C callback only (count, no copy)", cMedian), ("Swift MQTTClient (copy + batched AsyncSequence)", swiftMedian)] {
            print(
                "| \(name) | \(r.received) | \(Int(rate(r))) | \(String(format: "%.2f", r.cpuSeconds / Double(max(1, r.received)) * 1e6)) |"
            )
        }
        print("")
        print("Swift / C rate: \(String(format: "%.0f%%", rate(swiftMedian) / rate(cMedian) * 100)) (target ≥ 80%)")
    }

    private func rate(_ r: Result) -> Double { Double(r.received) / max(r.seconds, 1e-9) }
    private func median(_ results: [Result]) -> Result { results.sorted { rate($0) < rate($1) }[results.count / 2] }

    private func flood(port: Int32) throws -> pid_t {
        try spawn([
            CommandLine.arguments[0], "flood", "--port", "\(port)", "--messages", "\(messages)", "--payload-bytes", "\(payloadBytes)",
        ])
    }

    private func measureC(port: Int32) async throws -> Result {
        let subscriber = CSubscriber(port: port, topic: "bench/#")
        defer { subscriber.stop() }
        while !subscriber.connected.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))  // SUBACK
        let cpu = processCPUSeconds()
        let publisher = try flood(port: port)
        var last = -1
        while subscriber.received.load(ordering: .relaxed) < messages {
            try await Task.sleep(for: .milliseconds(200))
            let now = subscriber.received.load(ordering: .relaxed)
            if now == last { break }  // nothing more is coming
            last = now
        }
        let cpuUsed = processCPUSeconds() - cpu
        var status: Int32 = 0
        waitpid(publisher, &status, 0)
        let seconds = Double(subscriber.lastNanos.load(ordering: .relaxed) - subscriber.firstNanos.load(ordering: .relaxed)) / 1e9
        return Result(received: subscriber.received.load(ordering: .relaxed), seconds: seconds, cpuSeconds: cpuUsed)
    }

    private func measureSwift(port: Int32) async throws -> Result {
        let client = try MQTTClient(
            MQTTConfiguration(broker: BrokerAddress(host: "127.0.0.1", port: port, usesTLS: false), clientID: "bench-swift"))
        try client.start()
        try await client.waitUntilConnected()
        try await client.subscribe("bench/#", qos: .atMostOnce)
        let cpu = processCPUSeconds()
        let publisher = try flood(port: port)
        let target = messages
        let outcome = try await withThrowingTaskGroup(of: (Int, UInt64, UInt64)?.self) { group in
            group.addTask {
                var count = 0
                var first: UInt64 = 0
                var last: UInt64 = 0
                var bytes = 0
                for await message in client.messages {
                    if count == 0 { first = monotonicNanos() }
                    count += 1
                    bytes &+= message.payload.count
                    last = monotonicNanos()
                    if count == target { break }
                }
                _ = bytes
                return (count, first, last)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            let result = try await group.next()!
            group.cancelAll()
            return result
        }
        let cpuUsed = processCPUSeconds() - cpu
        var status: Int32 = 0
        waitpid(publisher, &status, 0)
        await client.shutdown()
        guard let (count, first, last) = outcome else {
            throw ValidationError("the Swift client received fewer than \(messages) messages in 60 s")
        }
        return Result(received: count, seconds: Double(last - first) / 1e9, cpuSeconds: cpuUsed)
    }
}
