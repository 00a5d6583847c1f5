import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "Bad input never crashes the gateway and never leaks through",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct BadInputTests {
    /// Payloads a broken device, a typo or a hostile client might send.
    static let corpus: [[UInt8]] = [
        [], Array("null".utf8), Array("{".utf8), Array("[1,2".utf8), Array(#"{"temperature":"hot"}"#.utf8),
        Array(#"{"temperature":null,"humidity":[1]}"#.utf8), Array(#"{"brightness":1e999}"#.utf8), Array(#"{"state":true}"#.utf8),
        Array(#"{"color":{"x":"a","y":null}}"#.utf8), Array(#"{"action":42}"#.utf8), Array(#"{"position":-5000}"#.utf8),
        Array(#"{"temperature":1e308,"humidity":-1e308}"#.utf8), Array(String(repeating: "[", count: 10_000).utf8),
        [0xFF, 0xFE, 0x00, 0x01], Array(#""\ud800""#.utf8), Array(#"{"brightness":92233720368547758070}"#.utf8),
        Array(#"{"local_temperature":"20","occupied_heating_setpoint":{"a":1},"system_mode":"dry"}"#.utf8),
        Array("ON".utf8), Array(#"{"lock_state":"exploded","contact":"maybe","occupancy":1}"#.utf8),
    ]

    static let topics = [
        "zigbee2mqtt/weather_sensor", "zigbee2mqtt/bulb", "zigbee2mqtt/bulb_color_2", "zigbee2mqtt/bosch_radiator", "zigbee2mqtt/curtain",
        "zigbee2mqtt/remote", "zigbee2mqtt/bulb/availability", "zigbee2mqtt/bridge/devices", "zigbee2mqtt/bridge/state",
        "homegate/set/bulb/lightbulb/brightness", "homegate/set/bulb/lightbulb", "homegate/set/x/y/z/w", "homegate/set/bulb/lightbulb/on",
        "homegate/request/characteristic/write", "homegate/request/characteristic/read", "homegate/request/", "stat/garage/DOOR",
        "tele/garage/SENSOR", "tele/garage/LWT",
    ]

    @Test("a corpus of malformed payloads on every kind of topic: the gateway answers, stays up and publishes no wrong value")
    func corpus() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        for topic in Self.topics {
            for payload in Self.corpus { try r.client.publish(topic, payload, qos: .atLeastOnce) }
        }
        // The bridge's device list was replaced by garbage; a real one puts it back.
        try await r.publish("zigbee2mqtt/bridge/request/simulator/add", #"{"model":"LED1545G12","friendly_name":"after_corpus"}"#)
        try await r.wait(for: "homegate/accessories", after: mark, timeout: .seconds(20)) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "after_corpus" } == true
        }
        try await r.publish(
            "homegate/request/characteristic/write",
            #"{"transaction":"alive","writes":[{"accessory":"after_corpus","service":"lightbulb","characteristic":"on","value":true}]}"#)
        let response = try await r.wait(for: "homegate/response/characteristic/write", after: mark, timeout: .seconds(20)) {
            $0["transaction"] == "alive"
        }
        #expect(response["status"] == "ok", "\(response)")
        #expect(house.gatewayIsRunning)
        for message in r.since(mark) where message.topic.hasPrefix("homegate/event/") {
            let event = try JSONValue(parsing: message.payload)
            #expect(event["value"] != .null, "\(message.topic)")
            if message.topic.hasSuffix("/brightness") { #expect((0...100).contains(event["value"]?.intValue ?? -1)) }
        }
        #expect(house.gatewayLog.contains("is not a number") && house.gatewayLog.contains("not JSON"))
        // Invalid requests got answers that name the problem.
        let errors = r.since(mark).filter { $0.topic.hasPrefix("homegate/response/") }.compactMap {
            try? JSONValue(parsing: $0.payload)["error"]?.stringValue
        }
        #expect(errors.contains("the request must be a JSON object"))
        #expect(errors.contains { $0.hasPrefix("the request is not JSON") })
    }

    @Test("payloads over max_payload_bytes are dropped and counted, not parsed; a large message nothing reads goes unwarned")
    func oversized() async throws {
        let house = try await House(environment: ["HOMEGATE_MAX_PAYLOAD_BYTES": "1024"])
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        let padding = String(repeating: "x", count: 4096)
        // Zigbee2MQTT's own definitions (since 1.38, retained, often large): homegate reads nothing in them.
        try await r.publish("zigbee2mqtt/bridge/definitions", #"{"clusters":{"padding":"\#(padding)"},"custom_clusters":{}}"#)
        try await r.publish("zigbee2mqtt/weather_sensor", #"{"temperature":30.5,"padding":"\#(padding)"}"#)
        try await r.publish("zigbee2mqtt/weather_sensor", #"{"temperature":31.5}"#)
        try await r.wait(for: "homegate/event/weather_sensor/temperature_sensor/current_temperature", after: mark) { $0["value"] == 31.5 }
        #expect(!r.since(mark).contains { $0.topic.hasPrefix("homegate/event/weather_sensor") && $0.payloadString.contains("30.5") })
        #expect(house.gatewayLog.contains("on zigbee2mqtt/weather_sensor: over max_payload_bytes (1024)"))
        #expect(!house.gatewayLog.contains("zigbee2mqtt/bridge/definitions"))
    }

    @Test("after the broker restarts the gateway reconnects, announces itself and asks devices for their state")
    func reconnect() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        await r.stop()
        func gets() -> Int { house.broker.log().components(separatedBy: "'zigbee2mqtt/bulb/get'").count - 1 }
        let before = gets()
        house.broker.kill()
        try await Task.sleep(for: .milliseconds(200))
        try house.broker.start()
        let recorder = try await Recorder(house.broker)
        defer { Task { await recorder.stop() } }
        try await recorder.wait(for: "homegate/bridge/state", timeout: .seconds(40)) { $0["state"] == "online" }
        // The broker's own log shows the gateway asking the bulb again once it is back.
        for _ in 0..<100 where gets() == before { try await Task.sleep(for: .milliseconds(100)) }
        #expect(gets() > before)
        let mark = recorder.mark
        try await recorder.publish("homegate/set/bulb/lightbulb/on", "true")
        try await recorder.wait(for: "zigbee2mqtt/bulb/set", after: mark)
    }
}
