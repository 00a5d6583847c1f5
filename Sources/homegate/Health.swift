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
        var mqtt = try settings.mqttConfiguration()
        mqtt.clientID = "homegate-health-\(UInt32.random(in: 0...UInt32.max))"
        mqtt.will = nil
        mqtt.birth = nil
        mqtt.cleanSession = true
        let client = try MQTTClient(mqtt)
        try client.start()
        defer { Task { await client.shutdown() } }
        let deadline = Duration.milliseconds(Int64(timeout * 1000))
        let transaction = "health-\(UInt32.random(in: 0...UInt32.max))"
        let answer: JSONValue? = await withTaskGroup(of: JSONValue?.self) { group in
            group.addTask {
                do {
                    try await client.waitUntilConnected(timeout: deadline)
                    try await client.subscribe("\(settings.baseTopic)/response/health", qos: .atLeastOnce)
                    try client.publish("\(settings.baseTopic)/request/health", #"{"transaction":"\#(transaction)"}"#, qos: .atLeastOnce)
                } catch {
                    printError("homegate health: \(error)")
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
        guard let data = answer?["data"] else {
            print("no answer: homegate did not answer on \(settings.baseTopic)/request/health within \(timeout) s "
                  + "(is it running, and is the broker at \(settings.mqtt.url) reachable?)")
            throw ExitCode(2)
        }
        guard data["ready"] == true else {
            let problems = data["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
            print("not ready: " + problems.joined(separator: "; "))
            throw ExitCode(1)
        }
        let files = data["mapping_files"]?.intValue ?? 0
        print("ready: broker connected, database ok, \(files) mapping file\(files == 1 ? "" : "s") loaded")
    }
}
