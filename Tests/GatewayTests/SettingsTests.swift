import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "Device settings and air pressure: what HAP has no place for, as characteristics of the API",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct SettingsTests {
    @Test(
        "a thermostat's child lock, a smoke detector's sensitivity, a switch's countdown: in the tree with their metadata, written as Zigbee2MQTT takes them, refused with why"
    )
    func settings() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let tree = try await r.wait(for: "homegate/accessories") {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "bosch_radiator" } == true
        }
        func service(_ accessory: String, _ id: String) -> JSONValue? {
            tree["accessories"]?.arrayValue?.first { $0["id"] == .string(accessory) }?["services"]?.arrayValue?.first {
                $0["id"] == .string(id)
            }
        }
        func characteristic(_ accessory: String, _ serviceID: String, _ name: String) -> JSONValue? {
            service(accessory, serviceID)?["characteristics"]?.arrayValue?.first { $0["type"] == .string(name) }
        }
        #expect(service("bosch_radiator", "settings")?["type"] == "settings")
        let sensitivity = try #require(characteristic("hallway_smoke_detector", "settings", "sensitivity"))
        #expect(
            sensitivity["format"] == "string" && sensitivity["valid_values"] == ["low", "medium", "high"]
                && sensitivity["permissions"] == ["read", "write", "notify"], "\(sensitivity)")
        let countdown = try #require(characteristic("kitchen_wall_switch", "settings", "countdown_l1"))
        #expect(
            countdown["format"] == "int" && countdown["min"] == 0 && countdown["max"] == 43200 && countdown["unit"] == "seconds",
            "\(countdown)")
        // A light's effect is never reported: write-only, and a read says so at once.
        #expect(characteristic("bulb", "settings", "effect")?["permissions"] == ["write"])
        let read = try await house.request("characteristic/read", ["characteristic": "bulb/settings/effect"])
        #expect(read["error"] == "bulb/settings/effect: is write-only: the device does not report it", "\(read)")
        let pressure = try #require(characteristic("weather_sensor", "air_pressure_sensor", "air_pressure"))
        #expect(pressure["uuid"] == "E863F10F-079E-48FF-8F27-9C2605A29F52" && pressure["unit"] == "hPa", "\(pressure)")

        var mark = r.mark
        try await house.ok(
            "characteristic/write",
            [
                "writes": [
                    ["characteristic": "bosch_radiator/settings/child_lock", "value": true],
                    ["characteristic": "hallway_smoke_detector/settings/sensitivity", "value": "high"],
                    ["characteristic": "kitchen_wall_switch/settings/countdown_l1", "value": 300],
                ]
            ])
        #expect(try await r.wait(for: "zigbee2mqtt/bosch_radiator/set", after: mark)["child_lock"] == "LOCK")
        #expect(try await r.wait(for: "zigbee2mqtt/hallway_smoke_detector/set", after: mark) == ["sensitivity": "high"])
        #expect(try await r.wait(for: "zigbee2mqtt/kitchen_wall_switch/set", after: mark) == ["countdown_l1": 300])
        let locked = try await r.wait(for: "homegate/event/bosch_radiator/settings/child_lock", after: mark)
        #expect(locked["value"] == true && locked["source"] == "api")
        try await r.wait(for: "homegate/event/hallway_smoke_detector/settings/sensitivity", after: mark) { $0["value"] == "high" }

        // The device changes it itself (a button held on the thermostat): an event from the device.
        mark = r.mark
        try await house.report("bosch_radiator", ["child_lock": "UNLOCK"])
        #expect(try await r.wait(for: "homegate/event/bosch_radiator/settings/child_lock", after: mark)["source"] == "device")

        let refused = try await house.request(
            "characteristic/write",
            [
                "writes": [
                    ["characteristic": "hallway_smoke_detector/settings/sensitivity", "value": "loud"]
                ]
            ])
        #expect(
            refused["data"]?["results"]?[0]?["error"]
                == #"hallway_smoke_detector/settings/sensitivity: "loud" is not one of "low", "medium", "high""#, "\(refused)")
    }
}
