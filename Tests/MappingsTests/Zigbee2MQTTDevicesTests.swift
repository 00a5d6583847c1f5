import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("Zigbee2MQTT devices become the accessories a HomeKit user expects")
struct Zigbee2MQTTDevicesTests {
    static let devices = Zigbee2MQTTDevice.list(from: Fixture.devices)

    static func mapping(_ name: String, _ override: Zigbee2MQTTOverride = .init()) throws -> Zigbee2MQTTMapping {
        let device = try #require(devices.first { $0.friendlyName == name })
        return try Zigbee2MQTTMapping.build(device, override: override).get()
    }

    /// Service id → characteristic names, for compact expectations.
    static func shape(_ accessory: Accessory) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: accessory.services.map { ($0.id, $0.characteristics.map(\.name)) })
    }

    @Test(
        "every device in the fixture maps as expected",
        arguments: [
            // Settable exposes HAP has no place for (a light's effect) are settings of homegate's own.
            ("bulb", Accessory.Category.lightbulb, ["lightbulb": ["on", "brightness", "color_temperature"], "settings": ["effect"]]),
            (
                "bulb_color_2", .lightbulb,
                ["lightbulb": ["on", "brightness", "color_temperature", "hue", "saturation"], "settings": ["effect", "effect_speed"]]
            ),
            (
                "remote", .programmable_switch,
                [
                    "stateless_programmable_switch_on": ["programmable_switch_event", "service_label_index"],
                    "stateless_programmable_switch_up": ["programmable_switch_event", "service_label_index"],
                    "stateless_programmable_switch_down": ["programmable_switch_event", "service_label_index"],
                    "stateless_programmable_switch_off": ["programmable_switch_event", "service_label_index"],
                    "service_label": ["service_label_namespace"],
                    "battery_service": ["battery_level", "charging_state", "status_low_battery"],
                ]
            ),
            // Triple and quadruple presses have no HomeKit event: a switch each, where a single press is one.
            (
                "button", .programmable_switch,
                [
                    "stateless_programmable_switch": ["programmable_switch_event", "service_label_index"],
                    "stateless_programmable_switch_triple": ["programmable_switch_event", "service_label_index"],
                    "stateless_programmable_switch_quadruple": ["programmable_switch_event", "service_label_index"],
                    "service_label": ["service_label_namespace"],
                    "battery_service": ["battery_level", "charging_state", "status_low_battery"],
                ]
            ),
            // Low battery shows on each sensor too, where HomeKit puts it on the sensor's tile.
            (
                "weather_sensor", .sensor,
                [
                    "temperature_sensor": ["current_temperature", "status_low_battery"],
                    "humidity_sensor": ["current_relative_humidity", "status_low_battery"],
                    "battery_service": ["battery_level", "charging_state", "status_low_battery"], "air_pressure_sensor": ["air_pressure"],
                ]
            ),
            ("power_plug", .outlet, ["outlet": ["on", "outlet_in_use"]]),
            ("kitchen_wall_switch", .switch, ["switch_l1": ["on"], "switch_l2": ["on"], "settings": ["countdown_l1", "countdown_l2"]]),
            (
                "front_door_contact", .sensor,
                [
                    "contact_sensor": ["contact_sensor_state", "status_low_battery"],
                    "battery_service": ["battery_level", "charging_state", "status_low_battery"],
                ]
            ),
            (
                "occupancy_sensor", .sensor,
                [
                    "motion_sensor": ["motion_detected", "status_low_battery"],
                    "light_sensor": ["current_ambient_light_level", "status_low_battery"],
                    "battery_service": ["battery_level", "charging_state", "status_low_battery"],
                ]
            ),
            (
                "hallway_smoke_detector", .sensor,
                [
                    "smoke_sensor": ["smoke_detected", "status_tampered", "status_low_battery"],
                    "battery_service": ["battery_level", "charging_state", "status_low_battery"],
                    "settings": ["sensitivity", "selftest"],
                ]
            ),
            ("curtain", .window_covering, ["window_covering": ["current_position", "target_position", "position_state", "hold_position"]]),
            (
                "bosch_radiator", .thermostat,
                [
                    "thermostat": [
                        "current_heating_cooling_state", "target_heating_cooling_state", "current_temperature", "target_temperature",
                        "temperature_display_units",
                    ],
                    "battery_service": ["battery_level", "charging_state", "status_low_battery"],
                    "settings": ["window_detection", "boost_heating", "child_lock"],
                ]
            ),
        ])
    func accessories(name: String, category: Accessory.Category, services: [String: [String]]) throws {
        let mapping = try Self.mapping(name)
        #expect(mapping.accessory.category == category)
        #expect(Self.shape(mapping.accessory) == services)
        #expect(mapping.accessory.services.filter(\.isPrimary).count == 1)
        for service in mapping.accessory.services {
            for characteristic in service.characteristics {
                #expect(service.type.allows(characteristic.type), "\(service.id) may not carry \(characteristic.name)")
            }
            for required in service.type.required {
                #expect(service[required.name] != nil, "\(service.id) lacks required \(required.name)")
            }
        }
    }

    @Test("the coordinator, unsupported devices and devices being interviewed get no accessory, with a reason")
    func skipped() throws {
        let reasons = Self.devices.compactMap { device -> String? in
            if case .failure(let skipped) = Zigbee2MQTTMapping.build(device) { return skipped.description }
            return nil
        }
        #expect(
            reasons == ["Coordinator: the coordinator", "0x0017880104e45518: not supported by Zigbee2MQTT (model notSupportedModelID)"])
        let interviewing = Zigbee2MQTTDevice(json: [
            "ieee_address": "0x01", "friendly_name": "new", "type": "Router", "interview_state": "IN_PROGRESS",
        ])!
        #expect(throws: SkippedDevice(device: "new", reason: "still being interviewed")) {
            try Zigbee2MQTTMapping.build(interviewing).get()
        }
        let failed = Zigbee2MQTTDevice(json: [
            "ieee_address": "0x02", "friendly_name": "broken", "type": "Router", "interview_state": "FAILED",
        ])!
        #expect(throws: SkippedDevice(device: "broken", reason: "its interview failed")) { try Zigbee2MQTTMapping.build(failed).get() }
        let legacy = Zigbee2MQTTDevice(json: [
            "ieee_address": "0x03", "friendly_name": "old", "type": "Router", "interviewing": true, "interview_completed": false,
        ])!
        #expect(legacy.skipReason == "still being interviewed")
    }

    @Test("a failed re-interview keeps a device that has its definition")
    func failedReinterview() throws {
        guard case .array(var entries) = Fixture.devices, let index = entries.firstIndex(where: { $0["friendly_name"] == "bulb" }),
            case .object(var bulb) = entries[index]
        else { Issue.record("no bulb in the fixture"); return }
        bulb["interview_state"] = "FAILED"
        entries[index] = .object(bulb)
        let device = try #require(Zigbee2MQTTDevice.list(from: .array(entries)).first { $0.friendlyName == "bulb" })
        #expect(device.skipReason == nil)
    }

    @Test("the whole bridge/devices payload: accessories for the devices, reasons for the rest")
    func wholePayload() {
        let (mappings, skipped) = Zigbee2MQTTMapping.build(Self.devices, bridge: "zigbee2mqtt") { device in
            device.friendlyName == "remote" ? .init(exclude: true) : .init()
        }
        #expect(
            mappings.map(\.accessory.id) == [
                "bulb", "bulb_color_2", "button", "weather_sensor", "power_plug", "kitchen_wall_switch", "front_door_contact",
                "occupancy_sensor", "hallway_smoke_detector", "curtain", "bosch_radiator",
            ])
        #expect(skipped.map(\.device) == ["Coordinator", "remote", "0x0017880104e45518"])
        #expect(skipped.map(\.reason)[1] == "excluded by the mapping file")
    }

    @Test("accessory data comes from the definition; ids are topic-safe friendly names")
    func information() throws {
        let bulb = try Self.mapping("bulb").accessory
        #expect(bulb.id == "bulb" && bulb.manufacturer == "IKEA" && bulb.model == "LED1545G12" && bulb.bridge == "zigbee2mqtt")
        #expect(bulb["lightbulb"]?["color_temperature"]?.minValue == 250 && bulb["lightbulb"]?["color_temperature"]?.maxValue == 454)
    }

    @Test("overrides: name, room, exclude, exclude properties, service choice")
    func overrides() throws {
        let renamed = try Self.mapping("bulb", .init(name: "Desk Lamp", room: "Office"))
        #expect(renamed.accessory.name == "Desk Lamp" && renamed.accessory.requestedRoom == "Office" && renamed.accessory.id == "bulb")
        let device = try #require(Self.devices.first { $0.friendlyName == "bulb" })
        #expect(throws: SkippedDevice.self) { try Zigbee2MQTTMapping.build(device, override: .init(exclude: true)).get() }
        let noBattery = try Self.mapping("weather_sensor", .init(excludeProperties: ["battery", "humidity", "pressure"]))
        #expect(Self.shape(noBattery.accessory) == ["temperature_sensor": ["current_temperature"]])
        #expect(try Self.mapping("power_plug", .init(service: .lightbulb)).accessory.services.first?.type == .lightbulb)
        #expect(
            try Self.mapping("kitchen_wall_switch", .init(service: .outlet)).accessory.services.map(\.id) == [
                "outlet_l1", "outlet_l2", "settings",
            ])
        #expect(try Self.mapping("occupancy_sensor", .init(service: .occupancy)).accessory["occupancy_sensor"] != nil)
        #expect(try Self.mapping("occupancy_sensor", .init(service: .motion)).accessory["motion_sensor"] != nil)
    }

    @Test("devices of one model share one copy of their rules; a device whose override changes them keeps its own")
    func sharedRules() throws {
        let bulb = try Self.mapping("bulb")
        var twin = try Zigbee2MQTTMapping.build(try UnsafeNameTests.bulb(named: "bulb_twin", ieee: "0x00158d0009f8e7d6")).get()
        let shared = twin.shareRules(with: bulb)
        #expect(shared)
        let storage = { (mapping: Zigbee2MQTTMapping) in mapping.gettableKeys.withUnsafeBufferPointer(\.baseAddress) }
        #expect(!bulb.gettableKeys.isEmpty && storage(twin) == storage(bulb), "one copy")
        #expect(twin.friendlyName == "bulb_twin" && twin.ieeeAddress == "0x00158d0009f8e7d6" && twin.accessory.id == "bulb_twin")
        let on = [CharacteristicUpdate(service: "lightbulb", characteristic: "on", value: .bool(true))]
        #expect(try twin.encode(on) == bulb.encode(on))
        #expect(twin.decode(["state": "ON", "brightness": 254]).updates == bulb.decode(["state": "ON", "brightness": 254]).updates)

        var noColorTemp = try Self.mapping("bulb", .init(excludeProperties: ["color_temp"]))
        let sharedToo = noColorTemp.shareRules(with: bulb)
        #expect(!sharedToo)
        #expect(noColorTemp.decode(["color_temp": 300]).updates.isEmpty, "its own rules kept")
        #expect(!bulb.decode(["color_temp": 300]).updates.isEmpty)
    }

    @Test("excluded properties reach into lights and gangs")
    func excludedFeatures() throws {
        let noColorTemp = try Self.mapping("bulb_color_2", .init(excludeProperties: ["color_temp"]))
        #expect(Self.shape(noColorTemp.accessory)["lightbulb"] == ["on", "brightness", "hue", "saturation"])
        #expect(noColorTemp.decode(["color_temp": 300]).updates.isEmpty)
        #expect(throws: Zigbee2MQTTMapping.WriteError.self) {
            try noColorTemp.encode([.init(service: "lightbulb", characteristic: "color_temperature", value: .int(300))])
        }
        let noColor = try Self.mapping("bulb_color_2", .init(excludeProperties: ["color"]))
        #expect(Self.shape(noColor.accessory)["lightbulb"] == ["on", "brightness", "color_temperature"])
        let oneGang = try Self.mapping("kitchen_wall_switch", .init(excludeProperties: ["state_l2", "countdown_l1", "countdown_l2"]))
        #expect(Self.shape(oneGang.accessory) == ["switch_l1": ["on"]])
        let noActions = try Self.mapping("button", .init(excludeProperties: ["action"]))
        #expect(Self.shape(noActions.accessory).keys.sorted() == ["battery_service"])
    }

    @Test("gettable keys come from access bit 4")
    func gettable() throws {
        #expect(Set(try Self.mapping("bulb").gettableKeys) == ["state", "brightness", "color_temp"])
        #expect(try Self.mapping("weather_sensor").gettableKeys.isEmpty)
    }

    @Test("coverage: devices fully, partly or not at all shown, and per kind of expose how many devices show it and why not")
    func coverage() throws {
        let devices = Zigbee2MQTTDevice.list(from: Fixture.devices)
        let report = Zigbee2MQTTCoverage(devices)
        #expect(report.fully.count + report.partly.count + report.none.count == devices.count)
        #expect(report.none.map(\.device) == ["Coordinator", "0x0017880104e45518"])
        #expect(report.fully.contains("weather_sensor"), "pressure is shown as Eve's")
        #expect(report.fully.contains("bulb"), "effect is a setting: \(report.partly)")
        #expect(report.partly.contains("power_plug"), "its energy readings are not shown: \(report.fully)")
        #expect(report.rows["light"]?.devices == 2 && report.rows["light"]?.shown == 2)
        #expect(report.rows["pressure"]?.devices == 1 && report.rows["pressure"]?.shown == 1)
        #expect(report.rows["linkquality"] == nil)
        #expect(report.table.hasPrefix("14 devices: \(report.fully.count) fully shown, \(report.partly.count) partly, 2 not at all"))
        #expect(report.table.contains("| `light` | 2 | 2 |  |"))
    }
}
