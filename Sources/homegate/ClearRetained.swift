import ArgumentParser
import Foundation
import Gateway
import JSON
import Mosquitto

struct ClearRetained: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-retained",
        abstract: "Remove the retained messages under homegate's base topic from the broker: for an uninstall.",
        discussion: """
            Connects as `homegate run` does, lists every retained message under <base_topic>/# (the bridge's state, \
            the accessory tree, each accessory's state) and clears each with an empty retained message. \
            Refuses while a homegate on that base topic is online: it would publish them again. Exits 1 when it could not.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "Seconds to wait for the broker.")
    var timeout: Double = 5

    @Flag(help: "List what would be removed, and remove nothing.")
    var dryRun = false

    func run() async throws {
        let settings = try loadSettings(config)
        let base = settings.baseTopic
        let client = try MQTTClient(settings.probeConfiguration(role: "clear-retained"))
        try client.start()
        let found: [MQTTMessage]
        do {
            found = try await retainedMessages(client, under: base, timeout: timeout)
        } catch {
            await client.shutdown()
            printError("homegate clear-retained: \(settings.mqtt.url): \(error)")
            throw ExitCode(1)
        }
        let state = found.first { $0.topic == "\(base)/bridge/state" }.flatMap { try? JSONValue(parsing: $0.payload) }
        if state?["state"] == "online" {
            await client.shutdown()
            printError(
                "homegate clear-retained: a homegate on \(base) is online (\(base)/bridge/state says so); stop it first, or it publishes them again. Nothing was removed"
            )
            throw ExitCode(1)
        }
        guard !found.isEmpty else {
            await client.shutdown()
            print("no retained messages under \(base)/# on \(settings.mqtt.url)")
            return
        }
        for message in found { print("\(dryRun ? "would remove" : "removed") \(message.topic)") }
        if !dryRun {
            do {
                for message in found {
                    try await client.publishAndWait(message.topic, [], qos: .atLeastOnce, retain: true, timeout: .seconds(timeout))
                }
            } catch {
                await client.shutdown()
                printError("homegate clear-retained: \(settings.mqtt.url): \(error); some were left")
                throw ExitCode(1)
            }
        }
        await client.shutdown()
        let count = "\(found.count) retained message\(found.count == 1 ? "" : "s")"
        print(dryRun ? "\(count) under \(base)/# would be removed (--dry-run: nothing was)" : "\(count) under \(base)/# removed")
    }
}

/// The retained messages under `base`/#: subscribes, then publishes a marker of its own and
/// collects until the marker comes back. The broker sends a new subscription's retained messages
/// before anything published after the SUBACK, so the marker ends the list without a guess at time.
private func retainedMessages(_ client: MQTTClient, under base: String, timeout: Double) async throws -> [MQTTMessage] {
    let deadline = Duration.milliseconds(Int64(timeout * 1000))
    try await client.waitUntilConnected(timeout: deadline)
    let marker = "\(base)/clear-retained/\(UInt64.random(in: 0...UInt64.max))"
    try await client.subscribe("\(base)/#", qos: .atLeastOnce)
    try client.publish(marker, "end of the retained messages", qos: .atLeastOnce)
    let collected: [MQTTMessage]? = await withTaskGroup(of: [MQTTMessage]?.self) { group in
        group.addTask {
            var retained: [MQTTMessage] = []
            for await message in client.messages {
                if message.topic == marker { return retained }
                if message.retain, !message.payload.isEmpty { retained.append(message) }
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
    guard let collected else {
        throw RetainedListFailure(
            description: "its own message on \(marker) did not come back within \(timeout) s (may this user publish under \(base)/?)")
    }
    guard client.droppedIncoming == 0 else {
        throw RetainedListFailure(
            description: "\(client.droppedIncoming) retained messages came faster than they were read and were dropped")
    }
    return collected.sorted { $0.topic < $1.topic }
}

private struct RetainedListFailure: Error, CustomStringConvertible {
    let description: String
}
