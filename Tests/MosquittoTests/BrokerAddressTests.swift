import Mosquitto
import Testing

@Suite("Broker URLs")
struct BrokerAddressTests {
    @Test("mqtt:// and mqtts:// with and without ports")
    func schemes() throws {
        #expect(try BrokerAddress(url: "mqtt://broker.lan") == BrokerAddress(host: "broker.lan", port: 1883, usesTLS: false))
        #expect(try BrokerAddress(url: "mqtts://broker.lan") == BrokerAddress(host: "broker.lan", port: 8883, usesTLS: true))
        #expect(try BrokerAddress(url: "mqtt://127.0.0.1:18830/") == BrokerAddress(host: "127.0.0.1", port: 18830, usesTLS: false))
        #expect(try BrokerAddress(url: "mqtts://[::1]:8884") == BrokerAddress(host: "::1", port: 8884, usesTLS: true))
    }

    @Test("unusable URLs say why", arguments: [
        ("http://broker:1883", "expected mqtt://host:port or mqtts://host:port"),
        ("mqtt://broker:port", "bad port"),
        ("mqtt://broker:70000", "port 70000 is outside 1-65535"),
        ("mqtt://user:pw@broker", "put credentials in username/password, not in the URL, and no path"),
        ("mqtt://", "no host"),
    ])
    func rejected(url: String, reason: String) {
        #expect(throws: MQTTError.invalidURL(url, reason: reason)) { try BrokerAddress(url: url) }
    }
}
