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

    @Test(
        "unusable URLs say why",
        arguments: [
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

@Suite("Topics are checked before they reach libmosquitto")
struct TopicRuleTests {
    @Test(
        "publish topics: no NUL, no wildcards, not empty, valid UTF-8, at most 65,535 bytes",
        arguments: [
            ("zigbee2mqtt/lamp\u{0}evil/set", "NUL"), ("zigbee2mqtt/+/set", "wildcards"), ("a/#", "wildcards"), ("", "empty"),
            ("bad\u{FFFD}", "UTF-8"), (String(repeating: "x", count: 65_536), "longer"),
        ])
    func publishTopics(topic: String, reason: String) {
        #expect(MQTTTopic.problem(publishing: topic)?.contains(reason) == true)
    }

    @Test("publish topics that are fine: letters beyond ASCII, an emoji, deep levels")
    func goodPublishTopics() {
        for good in ["zigbee2mqtt/küche licht/set", "homegate/event/a/b/c", "home/🛋️/lamp", "x"] {
            #expect(MQTTTopic.problem(publishing: good) == nil, "\(good)")
        }
    }

    @Test("filters: wildcards only as whole levels, '#' only last")
    func filters() {
        for good in ["a/+/c", "a/#", "#", "+", "zigbee2mqtt/kitchen/ceiling"] { #expect(MQTTTopic.problem(filter: good) == nil, "\(good)") }
        for bad in ["a/b+/c", "a/#/c", "a#", "x\u{0}y", ""] { #expect(MQTTTopic.problem(filter: bad) != nil, "\(bad)") }
    }

    @Test("a publish to a topic with a NUL is refused, not cut short to another device's topic")
    func publishRefused() throws {
        let client = try MQTTClient(MQTTConfiguration(broker: try BrokerAddress(url: "mqtt://127.0.0.1:1"), clientID: "topic-check"))
        #expect(
            throws: MQTTError.invalidTopic(
                "zigbee2mqtt/lamp\u{0}evil/set", reason: "it contains a NUL character, which would cut the topic short")
        ) {
            try client.publish("zigbee2mqtt/lamp\u{0}evil/set", "{}")
        }
    }
}
