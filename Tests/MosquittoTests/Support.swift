@_spi(Testing) import Mosquitto
import MosquittoTesting
import Synchronization

/// A connected client for a test broker, with the defaults tests want.
func connectedClient(
    _ broker: TestBroker, id: String = "test-\(UInt32.random(in: 0...UInt32.max))",
    configure: (inout MQTTConfiguration) -> Void = { _ in }
) async throws -> MQTTClient {
    var configuration = MQTTConfiguration(broker: try BrokerAddress(url: broker.url), clientID: id)
    configure(&configuration)
    let client = try MQTTClient(configuration)
    try client.start()
    try await client.waitUntilConnected(timeout: .seconds(5))
    return client
}

struct Timeout: Error, CustomStringConvertible {
    let description: String
}

/// The next `count` messages, or a failure after `timeout` that says what did arrive.
func receive(_ count: Int, from client: MQTTClient, timeout: Duration = .seconds(10)) async throws -> [MQTTMessage] {
    let collected = Collected()
    return try await withThrowingTaskGroup(of: [MQTTMessage].self) { group in
        group.addTask {
            var iterator = client.messages.makeAsyncIterator()
            while collected.messages.withLock({ $0.count }) < count, let batch = await iterator.nextBatch() {
                collected.messages.withLock { $0 += batch }
            }
            return collected.messages.withLock { $0 }
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            let got = collected.messages.withLock { $0 }
            throw Timeout(
                description:
                    "\(got.count) of \(count) messages within \(timeout): \(got.prefix(60).map { "\($0.topic)=\($0.payload.prefix(4))" })")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Waits for a connection state that satisfies `predicate`, polling the client's state.
func waitForState(
    _ client: MQTTClient, timeout: Duration = .seconds(10), _ predicate: (ConnectionState) -> Bool
) async throws -> ConnectionState {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        let state = client.state
        if predicate(state) { return state }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw Timeout(description: "state never matched; last \(client.state)")
}

final class Collected: Sendable {
    let messages = Mutex<[MQTTMessage]>([])
}
