import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "Live changes: devices joining, leaving, renamed; availability; mapping edits",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct LiveChangesTests {
    func ids(_ tree: JSONValue) -> [String] { tree["accessories"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }

    @Test("a device renamed in Zigbee2MQTT keeps its accessory id and its new topics are used")
    func rename() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/device/rename", #"{"from":"weather_sensor","to":"garden_sensor"}"#)
        try await r.wait(for: "zigbee2mqtt/bridge/response/device/rename", after: mark)
        try await house.barrier()  // the new device list came before the answer: it is handled
        try await r.publish("zigbee2mqtt/bridge/request/simulator/report", #"{"id":"garden_sensor","state":{"temperature":12.5}}"#)
        let event = try await r.wait(for: "homegate/event/weather_sensor/temperature_sensor/current_temperature", after: mark) {
            $0["value"] == 12.5
        }
        #expect(event["accessory"] == "weather_sensor")
        let write = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/device/rename", #"{"from":"bulb","to":"desk_lamp"}"#)
        try await r.wait(for: "zigbee2mqtt/bridge/response/device/rename", after: write)
        try await house.barrier()
        try await r.publish("homegate/set/bulb/lightbulb/on", "true")
        try await r.wait(for: "zigbee2mqtt/desk_lamp/set", after: write)
    }

    @Test("devices that join appear and devices removed disappear, their retained state cleared")
    func joinAndLeave() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/add", #"{"model":"WSDCGQ11LM","friendly_name":"Attic Sensor"}"#)
        let added = try await r.wait(for: "homegate/accessories", after: mark) { ids($0).contains("attic_sensor") }
        #expect(added["accessories"]?.arrayValue?.first { $0["id"] == "attic_sensor" }?["name"] == "Attic Sensor")
        let removal = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/device/remove", #"{"id":"front_door_contact"}"#)
        try await r.wait(for: "homegate/accessories", after: removal) { !ids($0).contains("front_door_contact") }
        #expect(r.since(removal).contains { $0.topic == "homegate/state/front_door_contact" && $0.payload.isEmpty })
    }

    @Test("availability sets reachable; the bridge going offline takes every device with it until it is back")
    func availability() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        var mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/availability", #"{"id":"bulb","state":"offline"}"#)
        try await r.wait(for: "homegate/state/bulb", after: mark) { $0["reachable"] == false }
        mark = r.mark
        try await r.publish("zigbee2mqtt/curtain/availability", "offline")  // 1.x plain text
        try await r.wait(for: "homegate/state/curtain", after: mark) { $0["reachable"] == false }
        mark = r.mark
        try await r.publish("homegate/set/bulb/lightbulb/on", "true")
        try await house.barrier()
        #expect(r.since(mark).filter { $0.topic == "zigbee2mqtt/bulb/set" }.isEmpty, "no writes to an unreachable device")

        mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/bridge_state", #"{"state":"offline"}"#)
        try await r.wait(for: "homegate/state/weather_sensor", after: mark) { $0["reachable"] == false }
        mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/bridge_state", #"{"state":"online"}"#)
        try await r.wait(for: "homegate/state/weather_sensor", after: mark) { $0["reachable"] == true }
        try await house.barrier()
        let bulbStates = r.since(mark).filter { $0.topic == "homegate/state/bulb" }
        #expect(bulbStates.allSatisfy { $0.payloadString.contains(#""reachable":false"#) }, "the bulb itself is still offline")
    }

    @Test("mapping edits apply while running, values kept; a new broken file is left out, said so, and changes nothing")
    func hotReload() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        var mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/report", #"{"id":"weather_sensor","state":{"temperature":19.5}}"#)
        try await r.wait(for: "homegate/state/weather_sensor", after: mark) {
            $0["services"]?["temperature_sensor"]?["current_temperature"] == 19.5
        }

        mark = r.mark
        let file = house.mappings.appendingPathComponent("zigbee2mqtt.yaml")
        var text = try String(contentsOf: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "    room: Garden\n", with: "    room: Greenhouse\n    name: Greenhouse Sensor\n")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let tree = try await r.wait(for: "homegate/accessories", after: mark, timeout: .seconds(10)) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "weather_sensor" && $0["room"] == "greenhouse" } == true
        }
        let moved = try await r.wait(for: "homegate/event/accessory/weather_sensor", after: mark) { $0["change"] == "room" }
        #expect(moved["room"] == "greenhouse" && moved["home"] == "home", "the mapping's new room is created and the sensor moves there")
        #expect(tree["accessories"]?.arrayValue?.first { $0["id"] == "weather_sensor" }?["name"] == "Greenhouse Sensor")
        let state = try await r.wait(for: "homegate/state/weather_sensor", after: mark)
        #expect(state["services"]?["temperature_sensor"]?["current_temperature"] == 19.5, "the value survived the reload")

        mark = r.mark
        try "source: mqtt\naccessories:\n  - id: Bad Id\n".write(
            to: house.mappings.appendingPathComponent("broken.yaml"), atomically: true, encoding: .utf8)
        let broken = try await r.wait(for: "homegate/event/mapping_file/broken.yaml", after: mark) { $0["change"] == "broken" }
        #expect(broken["kept_previous"] == false)
        // The event comes before any reload would: nothing was republished for the broken file.
        #expect(r.since(mark).filter { $0.topic == "homegate/accessories" }.isEmpty, "a broken file changes nothing")
        #expect(house.gatewayLog.contains("broken.yaml:3:9: id 'Bad Id' must use only a-z, 0-9, _ and -"))
        #expect(house.gatewayLog.contains("broken.yaml has 2 problems; it is left out"))
        #expect(house.gatewayIsRunning)
    }

    @Test("an explicit MQTT accessory: state through transforms, writes through templates, availability")
    func explicitAccessory() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        var mark = r.mark
        try await r.publish("tele/garage/LWT", "Online")
        try await r.publish("stat/garage/DOOR", "CLOSED")
        try await r.publish("tele/garage/SENSOR", #"{"Switch2":"OFF","DS18B20":{"Temperature":68.0}}"#)
        let state = try await r.wait(for: "homegate/state/garage_door", after: mark) {
            $0["services"]?["temperature_sensor"]?["current_temperature"] == 20.0 && $0["reachable"] == true
        }
        #expect(state["services"]?["garage_door_opener"]?["current_door_state"] == 1)
        #expect(state["services"]?["garage_door_opener"]?["obstruction_detected"] == false)
        mark = r.mark
        try await r.publish("homegate/set/garage_door/garage_door_opener/target_door_state", "0")
        let command = try #require(try await waitRaw(r, "cmnd/garage/DOOR", after: mark))
        #expect(command == "OPEN")
        mark = r.mark
        try await r.publish("homegate/set/hallway_dimmer/lightbulb/brightness", "50")
        #expect(try await waitRaw(r, "shellies/dimmer-hall/light/0/set", after: mark) == #"{"brightness_raw":128}"#)
    }

    func waitRaw(_ r: Recorder, _ topic: String, after mark: Int) async throws -> String? {
        for _ in 0..<100 {
            if let message = r.since(mark).first(where: { $0.topic == topic }) { return message.payloadString }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
