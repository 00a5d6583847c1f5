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

@Suite("TLS client certificates against a real mosquitto", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct ClientCertificateTests {
    @Test("a broker that requires a client certificate accepts ours and refuses a client without one")
    func clientCertificate() async throws {
        let broker = try TestBroker(.init(tls: true, requireClientCertificate: true))
        defer { withExtendedLifetime(broker) {} }
        let url = try BrokerAddress(url: try #require(broker.tlsURL))
        let pair = try #require(broker.clientCertificate)
        let withCertificate = try MQTTClient(
            MQTTConfiguration(
                broker: url, clientID: "with", tls: .init(caFile: broker.caFile, certificateFile: pair.certificate, keyFile: pair.key)))
        try withCertificate.start()
        try await withCertificate.waitUntilConnected(timeout: .seconds(5))

        let without = try MQTTClient(MQTTConfiguration(broker: url, clientID: "without", tls: .init(caFile: broker.caFile)))
        try without.start()
        await #expect(throws: MQTTError.self) { try await without.waitUntilConnected(timeout: .seconds(2)) }
        #expect(!without.state.isConnected)
        await withCertificate.shutdown()
        await without.shutdown()
    }

    @Test("a certificate without its key is refused before connecting")
    func certificateWithoutKey() throws {
        let configuration = MQTTConfiguration(
            broker: try BrokerAddress(url: "mqtts://127.0.0.1:1"), clientID: "x", tls: .init(certificateFile: "/tmp/client.crt"))
        #expect(throws: MQTTError.tls("a client certificate needs a key file too")) { try MQTTClient(configuration) }
    }
}
