import ArgumentParser
import Foundation
import Gateway
import JSON
import Mosquitto

struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask the running gateway whether it is ready: connected to the broker, the database written, every mapping file loaded.",
        discussion: """
            Uses the same configuration as `homegate run` to reach the broker, sends homegate/request/health and prints one line. \
            Exits 0 when the gateway is ready, 1 when it answers that it is not (the line says why), 2 when it does not answer.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    func run() async throws {
        let settings = try loadSettings(config)
        let client = try MQTTClient(settings.probeConfiguration(role: "health"))
        try client.start()
        let answer = await askHealth(client, baseTopic: settings.baseTopic, timeout: timeout) { printError("homegate health: \($0)") }
        await client.shutdown()
        guard let data = answer?["data"] else {
            print(
                "no answer: homegate did not answer on \(settings.baseTopic)/request/health within \(timeout) s "
                    + "(is it running, and is the broker at \(settings.mqtt.url) reachable?)")
            throw ExitCode(2)
        }
        // Warnings (a HomeKit bridge not advertised) follow on the same line; they do not change the exit status.
        let warnings = (data["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []).map { "; warning: \($0)" }.joined()
        guard data["ready"] == true else {
            let problems = data["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            print("not ready: " + problems.joined(separator: "; ") + warnings)
            throw ExitCode(1)
        }
        let files = data["mapping_files"]?.intValue ?? 0
        print("ready: broker connected, database ok, \(files) mapping file\(files == 1 ? "" : "s") loaded" + warnings)
    }
}

extension GatewayConfiguration {
    /// The broker settings for a short look from the command line: a client id of its own, no
    /// will or birth message (they would say the gateway went offline), a clean session.
    func probeConfiguration(role: String) throws(MQTTError) -> MQTTConfiguration {
        var mqtt = try mqttConfiguration()
        mqtt.clientID = "homegate-\(role)-\(UInt32.random(in: 0...UInt32.max))"
        mqtt.will = nil
        mqtt.birth = nil
        mqtt.cleanSession = true
        return mqtt
    }
}

/// Sends `<base>/request/health` and returns the answer, or nil if none came within `timeout`
/// seconds (`failed` hears why, when the broker could not be used).
func askHealth(
    _ client: MQTTClient, baseTopic: String, timeout: Double, failed: @escaping @Sendable (any Error) -> Void
) async -> JSONValue? {
    let deadline = Duration.milliseconds(Int64(timeout * 1000))
    let transaction = "health-\(UInt32.random(in: 0...UInt32.max))"
    return await withTaskGroup(of: JSONValue?.self) { group in
        group.addTask {
            do {
                try await client.waitUntilConnected(timeout: deadline)
                try await client.subscribe("\(baseTopic)/response/health", qos: .atLeastOnce)
                try client.publish("\(baseTopic)/request/health", #"{"transaction":"\#(transaction)"}"#, qos: .atLeastOnce)
            } catch {
                failed(error)
                return nil
            }
            for await message in client.messages {
                if let json = try? JSONValue(parsing: message.payload), json["transaction"] == .string(transaction) { return json }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: deadline)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
