import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Synchronization
import Testing

/// Everything a message saw, collected in the background from a `#` subscription.
final class Recorder: Sendable {
    let client: MQTTClient
    private let seen = Mutex<[MQTTMessage]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ broker: TestBroker) async throws {
        client = try MQTTClient(
            MQTTConfiguration(broker: BrokerAddress(url: broker.url), clientID: "recorder-\(UInt32.random(in: 0...UInt32.max))"))
        try client.start()
        try await client.waitUntilConnected()
        try await client.subscribe("#", qos: .atLeastOnce)
        let task = Task { [client, weak self] in
            var iterator = client.messages.makeAsyncIterator()
            while let batch = await iterator.nextBatch() { self?.seen.withLock { $0 += batch } }
        }
        self.task.withLock { $0 = task }
    }

    var messages: [MQTTMessage] { seen.withLock { $0 } }

    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// Index to count "messages after this point".
    var mark: Int { seen.withLock { $0.count } }

    func since(_ mark: Int) -> [MQTTMessage] { seen.withLock { Array($0[min(mark, $0.count)...]) } }

    /// Waits for a message on `topic` (after `mark`) whose JSON payload satisfies `predicate`;
    /// `topic` may be a filter with `+` and `#`.
    @discardableResult
    func wait(
        for topic: String, after mark: Int = 0, timeout: Duration = .seconds(10),
        _ predicate: @escaping (JSONValue) -> Bool = { _ in true }
    ) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for message in since(mark).reversed() where Self.matches(topic, message.topic) {
                if let json = try? JSONValue(parsing: message.payload), predicate(json) { return json }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError(
            "no message on \(topic) matched within \(timeout); last: \(messages(on: topic).last.map(\.payloadString) ?? "none")")
    }

    /// MQTT's matching: `+` is one level, `#` the rest.
    static func matches(_ filter: String, _ topic: String) -> Bool {
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in f.enumerated() {
            if level == "#" { return true }
            guard index < t.count, level == "+" || level == t[index] else { return false }
        }
        return f.count == t.count
    }

    func publish(_ topic: String, _ payload: String) async throws {
        try await client.publishAndWait(topic, Array(payload.utf8), qos: .atLeastOnce)
    }

    func stop() async {
        task.withLock { $0?.cancel() }
        await client.shutdown()
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A broker, the simulator and the gateway as processes, as a user runs them.
final class House: @unchecked Sendable {
    let broker: TestBroker
    let recorder: Recorder
    let mappings: URL
    var gateway: pid_t = 0
    var simulator: pid_t = 0
    var gatewayLog: String { (try? String(contentsOf: broker.directory.appendingPathComponent("homegate.log"), encoding: .utf8)) ?? "" }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func executable(_ name: String) -> String {
        URL(fileURLWithPath: homegateExecutable).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// `mappings` are file name → YAML; nil copies the demo house's demo/mappings/. Without `startGateway`,
    /// the test starts one itself (in this process, on a manual clock) and calls `settled()`.
    init(
        mappings files: [String: String]? = nil, environment: [String: String] = [:], sensorInterval: Double = 0,
        simulatorArguments: [String] = [], startGateway: Bool = true
    ) async throws {
        broker = try TestBroker()
        mappings = broker.directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        if let files {
            for (name, text) in files { try text.write(to: mappings.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        } else {
            for name in try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("demo/mappings").path)
            where name.hasSuffix(".yaml") {
                try FileManager.default.copyItem(
                    at: Self.repository.appendingPathComponent("demo/mappings/\(name)"), to: mappings.appendingPathComponent(name))
            }
        }
        recorder = try await Recorder(broker)
        simulator = try spawn(
            [
                Self.executable("homegate-simulator"), "--url", broker.url, "--devices",
                Self.repository.appendingPathComponent("demo/devices.json").path, "--sensor-interval", "\(sensorInterval)",
            ]
                + simulatorArguments,
            output: broker.directory.appendingPathComponent("simulator.log").path)
        try await recorder.wait(for: "zigbee2mqtt/bridge/devices")
        guard startGateway else { return }
        try self.startGateway(environment)
        try await settled()
    }

    /// The gateway has published the house and asked the bulb for its state and heard back.
    func settled(after mark: Int = 0) async throws {
        try await recorder.wait(for: "homegate/accessories", after: mark) { ($0["accessories"]?.arrayValue?.count ?? 0) > 10 }
        try await recorder.wait(for: "homegate/state/bulb", after: mark) { $0["services"]?["lightbulb"]?["on"] != nil }
        // "online" goes once the subscriptions hold (the tree and states a restarted gateway knew
        // from its last run wait for them too, StartBeforeBrokerTests); a write sent now is heard.
        try await recorder.wait(for: "homegate/bridge/state", after: mark) { $0["state"] == "online" }
    }

    /// Sends `homegate/request/<command>` and waits for the answer with the same transaction.
    @discardableResult
    func request(_ command: String, _ body: JSONValue = [:], timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let transaction = "t\(UInt32.random(in: 0...UInt32.max))"
        var fields = body.objectValue ?? [:]
        fields["transaction"] = .string(transaction)
        let mark = recorder.mark
        try await recorder.publish("homegate/request/\(command)", JSONValue.object(fields).serialized())
        return try await recorder.wait(for: "homegate/response/\(command)", after: mark, timeout: timeout) {
            $0["transaction"] == .string(transaction)
        }
    }

    /// Returns once the gateway has handled everything published before this call: its answer to a
    /// request comes after whatever it did about earlier messages (the broker keeps their order and
    /// the gateway handles them in order), so "nothing happened" is then an observation, not a wait.
    func barrier() async throws {
        try await request("home/list")
    }

    /// A request that must succeed: its `data`.
    @discardableResult
    func ok(
        _ command: String, _ body: JSONValue = [:], timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let response = try await request(command, body, timeout: timeout)
        #expect(response["status"] == "ok", "\(command): \(response)", sourceLocation: sourceLocation)
        return response["data"] ?? .null
    }

    /// A request that must be refused: its error.
    func refused(_ command: String, _ body: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await request(command, body)
        #expect(response["status"] == "error", "\(command) was accepted: \(response)", sourceLocation: sourceLocation)
        return response["error"]?.stringValue ?? ""
    }

    /// A simulated device reports new state, as Zigbee2MQTT would publish it.
    func report(_ device: String, _ state: JSONValue) async throws {
        try await recorder.publish(
            "zigbee2mqtt/bridge/request/simulator/report", JSONValue.object(["id": .string(device), "state": state]).serialized())
    }

    func startGateway(_ environment: [String: String] = [:]) throws {
        var env = [
            "HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0", "HOMEGATE_MAPPINGS": mappings.path,
            "HOMEGATE_LOG_LEVEL": "debug",
            "HOMEGATE_DATABASE": broker.database,
            // One connection: `barrier` counts on a device list being handled before a later request.
            "HOMEGATE_MQTT_LISTS_CONNECTION": "false",
        ]
        for (k, v) in environment { env[k] = v }
        gateway = try spawn(
            [homegateExecutable, "run"], output: broker.directory.appendingPathComponent("homegate.log").path, environment: env)
    }

    var gatewayIsRunning: Bool { kill(gateway, 0) == 0 && waitpid(gateway, nil, WNOHANG) == 0 }

    /// Stops the gateway and the simulator and waits for them (SIGTERM, then SIGKILL after 5 s), so
    /// no process outlives its test; the broker stops when the house is released.
    func stop() {
        stopGateway()
        Self.end(simulator)
        simulator = 0
    }

    /// Stops the simulator alone: nothing more comes from the bridge.
    func stopSimulator() {
        Self.end(simulator)
        simulator = 0
    }

    /// Stops the gateway alone, as SIGTERM does, and waits until it has exited.
    func stopGateway() {
        Self.end(gateway)
        gateway = 0
    }

    private static func end(_ pid: pid_t) {
        guard pid > 0, waitpid(pid, nil, WNOHANG) == 0 else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while waitpid(pid, nil, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, nil, 0)
                break
            }
            usleep(5_000)
        }
    }

    deinit { stop() }
}
