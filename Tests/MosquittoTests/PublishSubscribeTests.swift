@_spi(Testing) import Mosquitto
import MosquittoTesting
import Testing

@Suite("Publish and subscribe against a real mosquitto", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct PublishSubscribeTests {
    @Test("+ and # wildcards deliver exactly the matching topics")
    func wildcards() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let subscriber = try await connectedClient(broker)
        try await subscriber.subscribe("zigbee2mqtt/+/availability")
        try await subscriber.subscribe("homegate/event/#")
        let publisher = try await connectedClient(broker)
        for topic in [
            "zigbee2mqtt/bulb/availability", "zigbee2mqtt/bulb/set", "zigbee2mqtt/a/b/availability",
            "homegate/event/bulb/lightbulb/on", "homegate/state/bulb", "homegate/event",
        ] {
            try await publisher.publishAndWait(topic, Array(topic.utf8), qos: .atLeastOnce)
        }
        let received = try await receive(3, from: subscriber)
        #expect(Set(received.map(\.topic)) == ["zigbee2mqtt/bulb/availability", "homegate/event/bulb/lightbulb/on", "homegate/event"])
        #expect(received.allSatisfy { $0.payload == Array($0.topic.utf8) })
        await subscriber.shutdown()
        await publisher.shutdown()
    }

    @Test("a retained message reaches a later subscriber, flagged as retained")
    func retained() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let publisher = try await connectedClient(broker)
        try await publisher.publishAndWait("homegate/bridge/state", Array(#"{"state":"online"}"#.utf8), qos: .atLeastOnce, retain: true)
        let subscriber = try await connectedClient(broker)
        try await subscriber.subscribe("homegate/bridge/#")
        let message = try #require(try await receive(1, from: subscriber).first)
        #expect(message.topic == "homegate/bridge/state")
        #expect(message.payloadString == #"{"state":"online"}"#)
        #expect(message.retain)
        await subscriber.shutdown()
        await publisher.shutdown()
    }

    @Test("a reader takes payloads from its size up where libmosquitto holds them; smaller ones, and ones it declines, are copied")
    func readLargePayloads() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let subscriber = try await connectedClient(broker)
        // What it reads: the payload's length and its bytes' sum, as proof it saw them all.
        subscriber.readLargePayloads(minimumBytes: 1000) { topic, payload in
            topic.hasSuffix("/declined") ? nil : "\(payload.count) bytes summing to \(payload.reduce(0) { $0 + Int($1) })"
        }
        try await subscriber.subscribe("big/#")
        let publisher = try await connectedClient(broker)
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sum = large.reduce(0) { $0 + Int($1) }
        try await publisher.publishAndWait("big/list", large, qos: .atLeastOnce)
        try await publisher.publishAndWait("big/small", Array(repeating: 1, count: 999), qos: .atLeastOnce)
        try await publisher.publishAndWait("big/declined", large, qos: .atLeastOnce)
        let received = try await receive(3, from: subscriber)
        #expect(received.map(\.topic) == ["big/list", "big/small", "big/declined"])
        #expect(received[0].payload.isEmpty && received[0].read?.value as? String == "300000 bytes summing to \(sum)")
        #expect(received[1].read == nil && received[1].payload == Array(repeating: 1, count: 999))
        #expect(received[2].read == nil && received[2].payload == large)
        // Stopped, a large payload is copied as any other.
        subscriber.readLargePayloads(minimumBytes: 0, nil)
        try await publisher.publishAndWait("big/list", large, qos: .atLeastOnce)
        let after = try #require(try await receive(1, from: subscriber).first)
        #expect(after.read == nil && after.payload == large)
        await subscriber.shutdown()
        await publisher.shutdown()
    }

    @Test("10,000 messages arrive in order, none lost, payloads byte-exact")
    func tenThousandInOrder() async throws {
        // mosquitto drops QoS 1 messages past 1,000 queued for a slow subscriber; this test is about the client.
        let broker = try TestBroker(.init(extraConfiguration: ["max_queued_messages 0"]))
        defer { withExtendedLifetime(broker) {} }
        let subscriber = try await connectedClient(broker)
        try await subscriber.subscribe("load/#", qos: .atLeastOnce)
        let publisher = try await connectedClient(broker)
        let count = 10_000
        func payload(_ i: Int) -> [UInt8] {
            // Every byte value, including NUL and invalid UTF-8, must survive.
            (0..<(i % 300)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) } + Array("#\(i)".utf8)
        }
        for i in 0..<count {
            try publisher.publish("load/\(i % 7)", payload(i), qos: .atLeastOnce)
        }
        let received = try await receive(count, from: subscriber, timeout: .seconds(60))
        #expect(received.count == count)
        for (i, message) in received.enumerated() where message.payload != payload(i) || message.topic != "load/\(i % 7)" {
            Issue.record("message \(i) differs: \(message.topic) with \(message.payload.count) bytes")
            break
        }
        await subscriber.shutdown()
        await publisher.shutdown()
    }

    @Test("QoS 2 and QoS 1 messages are delivered with the QoS granted")
    func qualityOfService() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let client = try await connectedClient(broker)
        try await client.subscribe("q2/#", qos: .exactlyOnce)
        try await client.subscribe("q1/#", qos: .atLeastOnce)
        try await client.publishAndWait("q2/a", [2], qos: .exactlyOnce)
        try await client.publishAndWait("q1/a", [1], qos: .exactlyOnce)
        let received = try await receive(2, from: client)
        #expect(received.map(\.qos) == [2, 1])
        await client.shutdown()
    }

    @Test("unsubscribe stops delivery")
    func unsubscribe() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let client = try await connectedClient(broker)
        try await client.subscribe("a/#")
        try await client.subscribe("b/#")
        try await client.unsubscribe("a/#")
        try await client.publishAndWait("a/1", [1], qos: .atLeastOnce)
        try await client.publishAndWait("b/1", [2], qos: .atLeastOnce)
        let message = try #require(try await receive(1, from: client).first)
        #expect(message.topic == "b/1")
        await client.shutdown()
    }

    @Test("a consumer that falls behind loses the oldest messages, counted, never unbounded memory")
    func boundedInbox() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let subscriber = try await connectedClient(broker) { $0.inboxLimit = 100 }
        try await subscriber.subscribe("flood/#")
        let publisher = try await connectedClient(broker)
        for i in 0..<1_000 { try publisher.publish("flood/x", Array("\(i)".utf8), qos: .atLeastOnce) }
        try await publisher.publishAndWait("flood/end", [], qos: .atLeastOnce)
        // Nobody reads until all 1,001 have arrived: each is either waiting or dropped.
        let deadline = ContinuousClock.now + .seconds(20)
        while subscriber.droppedMessages + subscriber.waitingMessages < 1_001, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        var iterator = subscriber.messages.makeAsyncIterator()
        let batch = try #require(await iterator.nextBatch())
        #expect(batch.count <= 100)
        #expect(batch.last?.topic == "flood/end")
        #expect(subscriber.droppedMessages + batch.count == 1_001)
        await subscriber.shutdown()
        await publisher.shutdown()
    }
}
