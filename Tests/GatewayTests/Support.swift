import Foundation
import Mosquitto
import MosquittoTesting
import Synchronization

/// The `homegate` executable next to the test bundle (swift build --build-tests builds both).
let homegateExecutable: String = {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("homegate").path,
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/homegate").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
}()

/// A connected client that has subscribed to `filter`.
func watcher(_ broker: TestBroker, _ filter: String) async throws -> MQTTClient {
    let client = try MQTTClient(
        MQTTConfiguration(broker: BrokerAddress(url: broker.url), clientID: "watcher-\(UInt32.random(in: 0...UInt32.max))"))
    try client.start()
    try await client.waitUntilConnected()
    try await client.subscribe(filter)
    return client
}

final class Received: Sendable {
    let messages = Mutex<[MQTTMessage]>([])
}

/// Messages on `client` until `predicate` holds for what arrived, or `timeout`.
func awaitMessages(
    _ client: MQTTClient, timeout: Duration = .seconds(10), until predicate: @escaping @Sendable ([MQTTMessage]) -> Bool
) async -> [MQTTMessage] {
    let received = Received()
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            var iterator = client.messages.makeAsyncIterator()
            while let batch = await iterator.nextBatch() {
                let done = received.messages.withLock {
                    $0 += batch; return predicate($0)
                }
                if done { return }
            }
        }
        group.addTask { try? await Task.sleep(for: timeout) }
        await group.next()
        group.cancelAll()
    }
    return received.messages.withLock { $0 }
}

extension TestBroker {
    /// A database of the test's own, next to its broker.
    var database: String { directory.appendingPathComponent("homegate.sqlite").path }
}

/// Runs `homegate <arguments>` to the end without holding a thread of the cooperative pool
/// (it has two here; a test blocked in waitpid starves every other test's timers).
func homegate(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-\(UUID().uuidString).out").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let pid = try spawn([homegateExecutable] + arguments, output: output, environment: environment)
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(10)) }
    return (status >> 8, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
}

/// Runs `homegate <arguments>` to the end: its exit status and everything it printed.
func homegate(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-\(UUID().uuidString).out").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let pid = try spawn([homegateExecutable] + arguments, output: output, environment: environment)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (status >> 8, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
}
