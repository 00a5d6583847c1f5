import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Simulator
import Synchronization

/// A broker with a simulated bridge of many devices, the gateway as a process, and the clients
/// that load it and listen.
final class House: @unchecked Sendable {
    let broker: TestBroker
    let sensors: [String]
    /// Every device's friendly name and model, in inventory order.
    let devices: [(name: String, model: String)]
    let inventoryBytes: Int
    /// The retained `bridge/devices`, for a rename to publish it again changed.
    let inventory: [UInt8]
    let directory: URL
    var gateway: pid_t = 0
    var accessoryCount = 0
    /// The size of the retained tree (`homegate/accessories`) when every accessory was in it.
    var treeBytes = 0
    private let deviceCount: Int

    init(broker: TestBroker, devices count: Int) async throws {
        self.broker = broker
        deviceCount = count
        let inventory = try Data(contentsOf: URL(fileURLWithPath: "demo/devices.json"))
        let templates = try JSONValue(parsing: [UInt8](inventory)).arrayValue ?? []
        let weather = templates.filter { $0["friendly_name"] == "weather_sensor" }
        let others = templates.filter {
            $0["friendly_name"] != "weather_sensor" && $0["supported"] != false && SimulatedDevice(entry: $0).isServed
        }
        // Every other device a temperature sensor (the load), the rest a mix of everything else.
        var pattern: [JSONValue] = []
        for other in others { pattern += weather + [other] }
        let entries = SimulatedBridge.generated(count: count, from: pattern)
        devices = entries.map { ($0["friendly_name"]?.stringValue ?? "", $0["definition"]?["model"]?.stringValue ?? "") }
        sensors = devices.filter { $0.model == "WSDCGQ11LM" }.map(\.name)
        let payload = JSONValue.array(entries).serializedBytes()
        inventoryBytes = payload.count
        self.inventory = payload
        directory = broker.directory
        let mappings = directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n".write(
            to: mappings.appendingPathComponent("zigbee2mqtt.yaml"), atomically: true, encoding: .utf8)
        let client = try await Self.client(broker, "bench-setup")
        try await client.publishAndWait("zigbee2mqtt/bridge/state", Array(#"{"state":"online"}"#.utf8), qos: .atLeastOnce, retain: true)
        try await client.publishAndWait("zigbee2mqtt/bridge/devices", payload, qos: .atLeastOnce, retain: true, timeout: .seconds(20))
        await client.shutdown()
    }

    static func client(_ broker: TestBroker, _ id: String) async throws -> MQTTClient {
        let client = try MQTTClient(
            MQTTConfiguration(broker: BrokerAddress(host: "127.0.0.1", port: broker.port, usesTLS: false), clientID: id))
        try client.start()
        try await client.waitUntilConnected()
        return client
    }

    /// Publishes `payload` to `topic` every 100 ms until something arrives on `answer`: a helper
    /// process (`echo`, `relay`) is connected and subscribed. Throws after 10 s, naming `who`.
    func waitForAnswer(publishing topic: String, _ payload: String, on answer: String, from who: String) async throws {
        let client = try await Self.client(broker, "bench-answer-check")
        defer { Task { await client.shutdown() } }
        try await client.subscribe(answer, qos: .atMostOnce)
        let answered = Atomic<Bool>(false)
        let reader = Task {
            for await _ in client.messages {
                answered.store(true, ordering: .relaxed)
                return
            }
        }
        defer { reader.cancel() }
        let deadline = ContinuousClock.now + .seconds(10)
        while !answered.load(ordering: .relaxed) {
            guard ContinuousClock.now < deadline else { throw BenchError("\(who) did not answer within 10 s") }
            try? client.publish(topic, payload)
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The database `homegate run` uses: write it before starting the gateway to give it a home.
    var database: URL { directory.appendingPathComponent("homegate.sqlite") }
    var log: URL { directory.appendingPathComponent("homegate.log") }

    /// The `homegate` next to this benchmark, or HOMEGATE_BENCH_GATEWAY's: another build (an earlier
    /// commit's, say) measured in the same run.
    static var gatewayExecutable: String {
        ProcessInfo.processInfo.environment["HOMEGATE_BENCH_GATEWAY"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("homegate").path
    }

    /// Seconds from spawning `homegate run` to its retained tree with every accessory. `http` is
    /// `http.listen` ("off", or an address such as 127.0.0.1:0, then `httpPort` says where).
    func startGateway(logLevel: String = "warning", http: String = "off", environment extra: [String: String] = [:]) async throws -> Double {
        let watcher = try await Self.client(broker, "bench-startup")
        try await watcher.subscribe("homegate/accessories")
        let executable = Self.gatewayExecutable
        let start = ContinuousClock.now
        gateway = try spawn(
            [executable, "run"], output: log.path,
            environment: [
                "HOMEGATE_MQTT_URL": "mqtt://127.0.0.1:\(broker.port)", "HOMEGATE_HTTP_LISTEN": http,
                "HOMEGATE_MAPPINGS": directory.appendingPathComponent("mappings").path,
                "HOMEGATE_LOG_LEVEL": logLevel, "HOMEGATE_DATABASE": database.path,
            ].merging(extra) { _, new in new })
        for await message in watcher.messages {
            let tree = try? JSONValue(parsing: message.payload)
            accessoryCount = tree?["accessories"]?.arrayValue?.count ?? 0
            treeBytes = message.payload.count
            if accessoryCount >= deviceCount { break }
        }
        let elapsed = ContinuousClock.now - start
        await watcher.shutdown()
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The port of the gateway's HTTP server, from its log line "listening on http://127.0.0.1:N/"
    /// (the log level must be info or lower).
    func httpPort() async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return port }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("the gateway did not say where it listens for HTTP within 10 s (see \(log.path))")
    }

    func stop() {
        kill(gateway, SIGTERM)
        var status: Int32 = 0
        waitpid(gateway, &status, 0)
    }

    struct Flood { var sent: Int; var received: Int; var rate: Double }

    /// Publishes `count` readings as fast as possible and counts what arrives at the far end.
    func flood(count: Int, gateway: Bool) async throws -> Flood {
        let listener = try await Self.client(broker, "bench-listener")
        try await listener.subscribe(gateway ? "homegate/event/+/temperature_sensor/current_temperature" : "bench/#", qos: .atMostOnce)
        let publisher = try await Self.client(broker, "bench-publisher")
        let received = Atomic<Int>(0)
        let last = Atomic<UInt64>(0)
        let reader = Task {
            var iterator = listener.messages.makeAsyncIterator()
            while let batch = await iterator.nextBatch() {
                received.add(batch.count, ordering: .relaxed)
                last.store(UInt64(DispatchTime.now().uptimeNanoseconds), ordering: .relaxed)
            }
        }
        var counters = [Int](repeating: 0, count: sensors.count)
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<count {
            let s = i % sensors.count
            counters[s] += 1
            let value = reading(counters[s], sensor: s)
            let topic = gateway ? "zigbee2mqtt/\(sensors[s])" : "bench/\(sensors[s])"
            try publisher.publish(
                topic, Array(#"{"battery":90,"humidity":50,"linkquality":120,"temperature":\#(value),"voltage":2985}"#.utf8))
        }
        var previous = -1
        while received.load(ordering: .relaxed) < count {
            try await Task.sleep(for: .milliseconds(500))
            let now = received.load(ordering: .relaxed)
            if now == previous { break }
            previous = now
        }
        reader.cancel()
        await publisher.shutdown()
        await listener.shutdown()
        let got = received.load(ordering: .relaxed)
        // Nothing arrived (a gateway under valgrind is still busy): no last arrival to time from.
        let seconds = got == 0 ? 0 : Double(last.load(ordering: .relaxed) - start) / 1e9
        return Flood(sent: count, received: got, rate: Double(got) / max(seconds, 1e-9))
    }

    /// A temperature that differs from the sensor's previous one, in 0.1 °C steps.
    func reading(_ n: Int, sensor: Int) -> Double { Double(100 + (n + sensor) % 800) / 10 }

    /// Paced readings; the time from publish to arrival for each, in milliseconds. `onSend` hears
    /// each reading's key ("<sensor>|<tenths>") and its send time, for other listeners to time.
    /// Without the gateway, the readings go to `bench/<sensor>` and are heard on `<heardOn>/<sensor>`
    /// (the broker alone, or a reference client that republishes them). Each sensor's readings
    /// count from `first`: runs that follow one another need their own, or the gateway hears a
    /// sensor's reading again unchanged and says nothing.
    func latency(
        rate: Int, seconds: Double, gateway: Bool, heardOn: String = "bench", first: Int = 5000,
        onSend: (@Sendable (String, UInt64) -> Void)? = nil
    ) async throws -> Latencies {
        let listener = try await Self.client(broker, "bench-latency-listener-\(heardOn)-\(gateway)")
        try await listener.subscribe(gateway ? "homegate/event/+/temperature_sensor/current_temperature" : "\(heardOn)/#", qos: .atMostOnce)
        let publisher = try await Self.client(broker, "bench-latency-publisher-\(heardOn)-\(gateway)")
        let sent = Mutex<[String: UInt64]>([:])
        let samples = Mutex<[Double]>([])
        let reader = Task {
            for await message in listener.messages {
                let arrived = DispatchTime.now().uptimeNanoseconds
                guard let json = try? JSONValue(parsing: message.payload) else { continue }
                let key: String
                if gateway {
                    guard let id = json["accessory"]?.stringValue, let value = json["value"]?.doubleValue else { continue }
                    key = "\(id)|\(Int((value * 10).rounded()))"
                } else {
                    guard let value = json["temperature"]?.doubleValue else { continue }
                    key = "\(message.topic.dropFirst(heardOn.count + 1))|\(Int((value * 10).rounded()))"
                }
                if let start = sent.withLock({ $0.removeValue(forKey: key) }) {
                    samples.withLock { $0.append(Double(arrived - start) / 1e6) }
                }
            }
        }
        var counters = [Int](repeating: first, count: sensors.count)
        let total = Int(Double(rate) * seconds)
        let clock = ContinuousClock()
        let start = clock.now
        var i = 0
        while i < total {
            let due = min(
                total,
                Int(
                    Double(rate) * Double((clock.now - start).components.attoseconds) / 1e18 + Double(rate)
                        * Double((clock.now - start).components.seconds)))
            while i < due {
                let s = i % sensors.count
                counters[s] += 1
                let value = reading(counters[s], sensor: s)
                let topic = gateway ? "zigbee2mqtt/\(sensors[s])" : "bench/\(sensors[s])"
                let key = "\(sensors[s])|\(Int((value * 10).rounded()))"
                let now = DispatchTime.now().uptimeNanoseconds
                sent.withLock { $0[key] = now }
                onSend?(key, now)
                try publisher.publish(
                    topic, Array(#"{"battery":90,"humidity":50,"linkquality":120,"temperature":\#(value),"voltage":2985}"#.utf8))
                i += 1
            }
            try await clock.sleep(for: .milliseconds(1))
        }
        try await Task.sleep(for: .seconds(1))
        reader.cancel()
        await publisher.shutdown()
        await listener.shutdown()
        return Latencies(samples: samples.withLock { $0 })
    }
}
