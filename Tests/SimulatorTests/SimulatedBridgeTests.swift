import Foundation
import JSON
import Simulator
import Testing

@Suite("The simulated Zigbee2MQTT bridge")
struct SimulatedBridgeTests {
    static let entries: [JSONValue] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("demo/devices.json")
        let data = try! Data(contentsOf: url)
        return try! JSONValue(parsing: [UInt8](data)).arrayValue!
    }()

    func bridge() -> SimulatedBridge { SimulatedBridge(devices: Self.entries) }

    func state(_ publishes: [SimulatedBridge.Publish], _ topic: String) throws -> JSONValue {
        let publish = try #require(publishes.first { $0.topic == topic })
        return try JSONValue(parsing: publish.payload)
    }

    @Test("start-up publishes bridge state, info and devices retained, then availability and state per device")
    func startup() throws {
        let out = bridge().startup()
        #expect(out.prefix(3).map(\.topic) == ["zigbee2mqtt/bridge/state", "zigbee2mqtt/bridge/info", "zigbee2mqtt/bridge/devices"])
        #expect(out.prefix(3).allSatisfy { $0.retain })
        #expect(out.contains(.init("zigbee2mqtt/bulb/availability", #"{"state":"online"}"#, retain: true)))
        #expect(!out.contains { $0.topic.hasPrefix("zigbee2mqtt/Coordinator") }, "the coordinator publishes no state")
        let bulb = try state(out, "zigbee2mqtt/bulb")
        #expect(bulb["state"] == "OFF")
        #expect(bulb["color_mode"] == nil || bulb["color_temp"] != nil)
    }

    @Test("/set answers with the optimistic echo of the whole state, keys sorted")
    func setEcho() throws {
        var bridge = bridge()
        let out = bridge.handle(topic: "zigbee2mqtt/bulb/set", payload: Array(#"{"state":"ON","brightness":203}"#.utf8))
        #expect(out.count == 1)
        let payload = try #require(out.first?.payload)
        #expect(payload.contains(#""brightness":203"#))
        #expect(payload.contains(#""state":"ON""#))
        let keys = try JSONValue(parsing: payload).objectValue!.keys.sorted()
        #expect(payload.hasPrefix("{\"\(keys[0])\""), "keys come sorted, as Zigbee2MQTT emits them")
    }

    @Test("the /set forms: raw attribute, bare word, endpoint in the topic, endpoint suffix in the key")
    func setForms() throws {
        var bridge = bridge()
        #expect(
            try state(bridge.handle(topic: "zigbee2mqtt/bulb/set/brightness", payload: Array("50".utf8)), "zigbee2mqtt/bulb")["brightness"]
                == 50)
        #expect(
            try state(bridge.handle(topic: "zigbee2mqtt/bulb/set", payload: Array("toggle".utf8)), "zigbee2mqtt/bulb")["state"] == "OFF",
            "brightness 50 turned it on; toggle turns it off")
        let l2 = try state(
            bridge.handle(topic: "zigbee2mqtt/kitchen_wall_switch/l2/set", payload: Array(#"{"state":"ON"}"#.utf8)),
            "zigbee2mqtt/kitchen_wall_switch")
        #expect(l2["state_l2"] == "ON" && l2["state_l1"] == "OFF")
        let l1 = try state(
            bridge.handle(topic: "zigbee2mqtt/kitchen_wall_switch/set", payload: Array(#"{"state_l1":"ON"}"#.utf8)),
            "zigbee2mqtt/kitchen_wall_switch")
        #expect(l1["state_l1"] == "ON")
    }

    @Test("devices react like hardware: covers move, locks lock, colour sets color_mode")
    func consequences() throws {
        var bridge = bridge()
        let curtain = try state(
            bridge.handle(topic: "zigbee2mqtt/curtain/set", payload: Array(#"{"state":"OPEN"}"#.utf8)), "zigbee2mqtt/curtain")
        #expect(curtain["position"] == 100)
        let position = try state(
            bridge.handle(topic: "zigbee2mqtt/curtain/set", payload: Array(#"{"position":0}"#.utf8)), "zigbee2mqtt/curtain")
        #expect(position["state"] == "CLOSE")
        let color = try state(
            bridge.handle(topic: "zigbee2mqtt/bulb_color_2/set", payload: Array(#"{"color":{"x":0.5,"y":0.4}}"#.utf8)),
            "zigbee2mqtt/bulb_color_2")
        #expect(color["color_mode"] == "xy")
        let ct = try state(bridge.handle(topic: "zigbee2mqtt/bulb/set", payload: Array(#"{"color_temp":1000}"#.utf8)), "zigbee2mqtt/bulb")
        #expect(ct["color_temp"] == 454, "clamped to the bulb's own range")
    }

    @Test("invalid values and read-only keys publish nothing")
    func invalid() {
        var bridge = bridge()
        #expect(bridge.handle(topic: "zigbee2mqtt/bulb/set", payload: Array(#"{"state":true}"#.utf8)).isEmpty)
        #expect(bridge.handle(topic: "zigbee2mqtt/bulb/set", payload: Array(#"{"brightness":999}"#.utf8)).isEmpty)
        #expect(bridge.handle(topic: "zigbee2mqtt/weather_sensor/set", payload: Array(#"{"temperature":5}"#.utf8)).isEmpty)
        #expect(bridge.handle(topic: "zigbee2mqtt/bulb/set", payload: Array("not json".utf8)).isEmpty)
        #expect(bridge.handle(topic: "zigbee2mqtt/nobody/set", payload: Array(#"{"state":"ON"}"#.utf8)).isEmpty)
    }

    @Test("/get publishes the current state")
    func get() throws {
        var bridge = bridge()
        let out = bridge.handle(topic: "zigbee2mqtt/weather_sensor/get", payload: Array(#"{"temperature":""}"#.utf8))
        #expect(try state(out, "zigbee2mqtt/weather_sensor")["temperature"] == 21.5)
    }

    @Test("rename keeps the IEEE address, clears the old topics and republishes devices")
    func rename() throws {
        var bridge = bridge()
        let ieee = bridge.device("bulb")?.ieeeAddress
        let out = bridge.handle(
            topic: "zigbee2mqtt/bridge/request/device/rename", payload: Array(#"{"from":"bulb","to":"desk_lamp","transaction":7}"#.utf8))
        #expect(out.contains(.init("zigbee2mqtt/bulb", "", retain: true)))
        #expect(out.contains { $0.topic == "zigbee2mqtt/bridge/devices" && $0.payload.contains("desk_lamp") })
        #expect(bridge.device("desk_lamp")?.ieeeAddress == ieee)
        let response = try state(out, "zigbee2mqtt/bridge/response/device/rename")
        #expect(response["status"] == "ok" && response["transaction"] == 7)
        let missing = bridge.handle(topic: "zigbee2mqtt/bridge/request/device/rename", payload: Array(#"{"from":"bulb","to":"x"}"#.utf8))
        #expect(try state(missing, "zigbee2mqtt/bridge/response/device/rename")["error"] == "Device 'bulb' does not exist")
    }

    @Test("devices join, leave, go offline, and buttons are pressed on command")
    func commands() throws {
        var bridge = bridge()
        _ = bridge.handle(
            topic: "zigbee2mqtt/bridge/request/simulator/add", payload: Array(#"{"model":"LED1545G12","friendly_name":"porch"}"#.utf8))
        #expect(bridge.device("porch") != nil)
        _ = bridge.handle(topic: "zigbee2mqtt/bridge/request/device/remove", payload: Array(#"{"id":"porch"}"#.utf8))
        #expect(bridge.device("porch") == nil)
        let offline = bridge.handle(
            topic: "zigbee2mqtt/bridge/request/simulator/availability", payload: Array(#"{"id":"bulb","state":"offline"}"#.utf8))
        #expect(offline.contains(.init("zigbee2mqtt/bulb/availability", #"{"state":"offline"}"#, retain: true)))
        let press = bridge.handle(
            topic: "zigbee2mqtt/bridge/request/simulator/action", payload: Array(#"{"id":"button","action":"double"}"#.utf8))
        #expect(try state(press, "zigbee2mqtt/button")["action"] == "double")
        #expect(bridge.device("button")?.state["action"] == nil, "action is never cached")
    }

    @Test("a thousand generated devices have unique names and addresses")
    func generated() {
        let entries = SimulatedBridge.generated(count: 1000, from: Self.entries)
        let bridge = SimulatedBridge(devices: entries)
        #expect(Set(bridge.devices.map(\.friendlyName)).count == 1000)
        #expect(Set(bridge.devices.map(\.ieeeAddress)).count == 1000)
    }

    @Test("a joined device's IEEE address is 0x and 16 hex digits, as the mapping files' keys require, every time")
    func ieeeAddresses() throws {
        var bridge = bridge()
        for n in 0..<200 {
            let answer = bridge.handle(
                topic: "zigbee2mqtt/bridge/request/simulator/add", payload: Array(#"{"model":"LED1545G12","friendly_name":"j\#(n)"}"#.utf8))
            let ieee = try #require(try state(answer, "zigbee2mqtt/bridge/response/simulator/add")["data"]?["ieee_address"]?.stringValue)
            #expect(ieee.count == 18 && ieee.hasPrefix("0x") && ieee.dropFirst(2).allSatisfy(\.isHexDigit), "\(ieee)")
        }
    }

    @Test("a still device reports only when told to: it is not among those that report by themselves")
    func stillDevices() throws {
        var bridge = bridge()
        #expect(bridge.reportingDevices.contains("occupancy_sensor"))
        bridge.still = ["occupancy_sensor"]
        #expect(!bridge.reportingDevices.contains("occupancy_sensor"))
        #expect(bridge.reportingDevices.contains("weather_sensor"))
        let told = bridge.handle(
            topic: "zigbee2mqtt/bridge/request/simulator/report",
            payload: Array(#"{"id":"occupancy_sensor","state":{"occupancy":true}}"#.utf8))
        #expect(try state(told, "zigbee2mqtt/occupancy_sensor")["occupancy"] == true)
    }
}
