import Mosquitto
import MosquittoTesting
import Testing

@Suite("TLS against a real mosquitto", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct TLSTests {
    @Test("the right CA connects and messages flow")
    func rightCA() async throws {
        let broker = try TestBroker(.init(tls: true))
        defer { withExtendedLifetime(broker) {} }
        let configuration = MQTTConfiguration(
            broker: try BrokerAddress(url: try #require(broker.tlsURL)), clientID: "tls", tls: .init(caFile: broker.caFile))
        let client = try MQTTClient(configuration)
        try client.start()
        try await client.waitUntilConnected(timeout: .seconds(5))
        try await client.subscribe("secure/#")
        try await client.publishAndWait("secure/hello", Array("hi".utf8))
        #expect(try await receive(1, from: client).first?.payloadString == "hi")
        await client.shutdown()
    }

    @Test("a CA that did not sign the broker fails with a clear error")
    func wrongCA() async throws {
        let broker = try TestBroker(.init(tls: true))
        defer { withExtendedLifetime(broker) {} }
        let configuration = MQTTConfiguration(
            broker: try BrokerAddress(url: try #require(broker.tlsURL)), clientID: "tls", tls: .init(caFile: broker.otherCAFile))
        let client = try MQTTClient(configuration)
        try client.start()
        let state = try await waitForState(client) { if case .disconnected = $0 { true } else { false } }
        #expect(state.description.contains("certificate verify failed"), "\(state)")
        await client.shutdown()
    }

    @Test("a missing CA file is refused before connecting, naming the file")
    func missingCA() throws {
        let configuration = MQTTConfiguration(
            broker: try BrokerAddress(url: "mqtts://127.0.0.1:1"), clientID: "tls", tls: .init(caFile: "/nonexistent/ca.crt"))
        #expect { try MQTTClient(configuration) } throws: { error in
            "\(error)".contains("/nonexistent/ca.crt")
        }
    }
}
