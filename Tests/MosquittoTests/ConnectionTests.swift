@_spi(Testing) import Mosquitto
import MosquittoTesting
import Secrets
import Testing

@Suite("Connection lifecycle against a real mosquitto", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct ConnectionTests {
    @Test("QoS 1 messages published while the broker is down arrive once it is back")
    func outage() async throws {
        let broker = try TestBroker(.init(persistence: true))
        defer { withExtendedLifetime(broker) {} }
        let subscriber = try await connectedClient(broker, id: "outage-subscriber") { $0.cleanSession = false }
        try await subscriber.subscribe("outage/#", qos: .atLeastOnce)
        let publisher = try await connectedClient(broker, id: "outage-publisher")
        try await publisher.publishAndWait("outage/before", [0], qos: .atLeastOnce)
        _ = try await receive(1, from: subscriber)

        broker.stop()
        _ = try await waitForState(publisher) { !$0.isConnected }
        for i in 1...50 { try publisher.publish("outage/during", [UInt8(i)], qos: .atLeastOnce) }
        try broker.start()

        let received = try await receive(50, from: subscriber, timeout: .seconds(5))
        #expect(received.map(\.payload) == (1...50).map { [UInt8($0)] })
        let duplicate = try? await receive(1, from: subscriber, timeout: .milliseconds(500))
        #expect(duplicate == nil, "each message once")
        await subscriber.shutdown()
        await publisher.shutdown()
    }

    @Test("a clean-session client subscribes again after the broker restarts")
    func resubscribe() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let subscriber = try await connectedClient(broker)
        try await subscriber.subscribe("devices/+/state")
        broker.kill()
        _ = try await waitForState(subscriber) { if case .disconnected = $0 { true } else { false } }
        try broker.start()
        try await subscriber.waitUntilConnected(timeout: .seconds(20))
        // The SUBSCRIBE goes out in the CONNACK callback; give it a round trip.
        let publisher = try await connectedClient(broker)
        var received: [MQTTMessage] = []
        for attempt in 0..<50 where received.isEmpty {
            try await publisher.publishAndWait("devices/lamp/state", Array("\(attempt)".utf8), qos: .atLeastOnce)
            received = (try? await receive(1, from: subscriber, timeout: .milliseconds(100))) ?? []
        }
        #expect(received.first?.topic == "devices/lamp/state")
        await subscriber.shutdown()
        await publisher.shutdown()
    }

    @Test("the retained will is delivered when the connection dies without a DISCONNECT")
    func will() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let offline = MQTTConfiguration.StatusMessage(topic: "homegate/bridge/state", payload: Array(#"{"state":"offline"}"#.utf8))
        let online = MQTTConfiguration.StatusMessage(topic: "homegate/bridge/state", payload: Array(#"{"state":"online"}"#.utf8))
        let gateway = try await connectedClient(broker, id: "gateway") {
            $0.will = offline
            $0.birth = online
            $0.reconnectDelay = (5, 5)  // stay away long enough to see the will
        }
        let watcher = try await connectedClient(broker)
        try await watcher.subscribe("homegate/bridge/state")
        #expect(try await receive(1, from: watcher).first?.payloadString == #"{"state":"online"}"#)
        gateway.severConnection()
        let will = try #require(try await receive(1, from: watcher).first)
        #expect(will.payloadString == #"{"state":"offline"}"#)
        await gateway.shutdown()
        await watcher.shutdown()
    }

    @Test("graceful shutdown publishes the final status and the will is not sent")
    func gracefulShutdown() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let gateway = try await connectedClient(broker, id: "gateway") {
            $0.will = .init(topic: "gw/state", payload: Array("will".utf8))
        }
        let watcher = try await connectedClient(broker)
        try await watcher.subscribe("gw/state")
        await gateway.shutdown(finalMessage: .init(topic: "gw/state", payload: Array("offline".utf8)))
        #expect(gateway.state == .closed)
        #expect(try await receive(1, from: watcher).map(\.payloadString) == ["offline"])
        let more = try? await receive(1, from: watcher, timeout: .milliseconds(500))
        #expect(more == nil, "the will must not follow a clean disconnect")
        await watcher.shutdown()
    }

    @Test(
        "a wrong password is reported as a refusal, not waited out, and not retried",
        arguments: [MQTTConfiguration.ProtocolVersion.v5, .v311])
    func wrongPassword(version: MQTTConfiguration.ProtocolVersion) async throws {
        let broker = try TestBroker(.init(users: ["homegate": "right"]))
        defer { withExtendedLifetime(broker) {} }
        var configuration = MQTTConfiguration(
            broker: try BrokerAddress(url: broker.url), clientID: "gw", username: "homegate", password: "wrong")
        configuration.protocolVersion = version
        configuration.reconnectDelay = (1, 1)
        let client = try MQTTClient(configuration)
        try client.start()
        // The wait ends with the refusal, not with its own time-out (no clock: a loaded machine is slow).
        let thrown = await #expect(throws: MQTTError.self) { try await client.waitUntilConnected(timeout: .seconds(30)) }
        if case .timedOut = thrown { Issue.record("the refusal was not reported; the wait timed out") }
        guard case .refused(let error) = client.state else {
            Issue.record("expected refused, got \(client.state)")
            return
        }
        #expect(error.description.contains("refused"))
        #expect(
            error.description.contains(version == .v5 ? "Bad user name or password" : "bad username or password")
                || error.description.contains("authori"))
        // A storm would show as more connection attempts in the broker's log.
        try await Task.sleep(for: .milliseconds(2500))
        let attempts = broker.log().split(separator: "\n").filter { $0.contains("Sending CONNACK") }
        #expect(attempts.count == 1, "\(attempts)")
        await client.shutdown()
    }

    @Test("the right password connects")
    func rightPassword() async throws {
        let broker = try TestBroker(.init(users: ["homegate": "right"]))
        defer { withExtendedLifetime(broker) {} }
        let client = try await connectedClient(broker) {
            $0.username = "homegate"; $0.password = "right"
        }
        #expect(client.state == .connected)
        await client.shutdown()
    }

    @Test(
        "a second client with the same id: the first is told why, in words, on both protocol versions",
        arguments: [MQTTConfiguration.ProtocolVersion.v5, .v311])
    func sessionTakenOver(version: MQTTConfiguration.ProtocolVersion) async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        func client() throws -> MQTTClient {
            var configuration = MQTTConfiguration(broker: try BrokerAddress(url: broker.url), clientID: "same-id")
            configuration.protocolVersion = version
            configuration.reconnectDelay = (1, 1)
            return try MQTTClient(configuration)
        }
        let first = try client()
        try first.start()
        try await first.waitUntilConnected()
        let second = try client()
        try second.start()
        // The two take the id from each other at every reconnect; the first one's losses say why.
        var reason = ""
        var losses = 0
        for await state in first.connectionEvents {
            guard case .disconnected(let why) = state else { continue }
            reason = why
            losses += 1
            if why.contains("same client id 'same-id'") || losses == 5 { break }
        }
        #expect(reason.contains("another client connected with the same client id 'same-id'"), "\(reason)")
        #expect(reason.contains("mqtt.client_id"))
        await second.shutdown()
        await first.shutdown()
    }
}
