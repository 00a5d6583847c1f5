import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite("Mistakes that used to stay silent are said, once", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct SilentMistakeTests {
    func logged(_ house: House, _ text: String, within seconds: Int = 10) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !house.gatewayLog.contains(text), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(house.gatewayLog.contains(text), "not in the log: \(text)")
    }

    @Test("an override for no device, a rename that leaves a name-keyed override behind, a base topic nobody answers on")
    func warnings() async throws {
        let shipped = try String(contentsOf: House.repository.appendingPathComponent("demo/mappings/zigbee2mqtt.yaml"), encoding: .utf8)
        let house = try await House(mappings: [
            "zigbee2mqtt.yaml": shipped + "  livng_room_lamp: { name: Living Lamp }\n",
            "typo.yaml": "source: zigbee2mqtt\nbase_topic: zigbee2mqt\n",
        ])
        defer { house.stop() }
        try await logged(house, "the override 'livng_room_lamp' matches no device on zigbee2mqtt")
        #expect(house.gatewayLog.components(separatedBy: "the override 'livng_room_lamp'").count - 1 == 1, "said once")

        try await house.recorder.publish("zigbee2mqtt/bridge/request/device/rename", #"{"from":"bulb","to":"desk_bulb"}"#)
        try await logged(house, "zigbee2mqtt: 'bulb' was renamed to 'desk_bulb' in Zigbee2MQTT; its override in")
        try await logged(house, "key it by its IEEE address")

        try await logged(house, "nothing answers on base_topic 'zigbee2mqt': no zigbee2mqt/bridge/devices in 10 s", within: 20)
    }

    @Test("a mapping room changed for an accessory moved through the API: the move wins, and the log says so")
    func pinnedRoom() async throws {
        let house = try await House()
        defer { house.stop() }
        try await house.ok("accessory/assign_room", ["accessory": "weather_sensor", "room": "Office"])
        let file = house.mappings.appendingPathComponent("zigbee2mqtt.yaml")
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
            of: "    room: Garden\n", with: "    room: Greenhouse\n")
        try text.write(to: file, atomically: true, encoding: .utf8)
        try await logged(
            house, "weather_sensor: its mapping now puts it in 'Greenhouse', but it was moved to 'Office' with accessory/assign_room")
        let placed = try await house.ok("accessories")["accessories"]?.arrayValue?.first { $0["id"] == "weather_sensor" }
        #expect(placed?["room"] == "office", "\(placed ?? .null)")
    }
}
