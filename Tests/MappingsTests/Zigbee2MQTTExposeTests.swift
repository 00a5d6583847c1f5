import HomeModel
import JSON
import Testing

@testable import Mappings

/// Exposes as zigbee-herdsman-converters builds them, for device kinds the fixtures lack.
enum Exposes {
    static func device(
        _ exposes: [JSONValue], name: String = "device", description: String = "A device",
        override: Zigbee2MQTTOverride = .init()
    ) throws -> Zigbee2MQTTMapping {
        let json: JSONValue = [
            "ieee_address": "0x00124b0000000001", "friendly_name": .string(name), "type": "EndDevice", "supported": true,
            "interview_state": "SUCCESSFUL",
            "definition": [
                "model": "M1", "vendor": "V", "description": .string(description), "source": "native", "exposes": .array(exposes),
            ],
        ]
        return try Zigbee2MQTTMapping.build(#require(Zigbee2MQTTDevice(json: json)), override: override).get()
    }

    static func numeric(
        _ name: String, endpoint: String? = nil, access: Int = 1, min: Double? = nil, max: Double? = nil, step: Double? = nil,
        unit: String? = nil
    ) -> JSONValue {
        var e: [String: JSONValue] = [
            "type": "numeric", "name": .string(name), "property": .string(property(name, endpoint)), "access": .integer(access),
        ]
        if let unit { e["unit"] = .string(unit) }
        if let endpoint { e["endpoint"] = .string(endpoint) }
        if let min { e["value_min"] = .double(min) }
        if let max { e["value_max"] = .double(max) }
        if let step { e["value_step"] = .double(step) }
        return .object(e)
    }

    static func binary(_ name: String, on: JSONValue = true, off: JSONValue = false, endpoint: String? = nil, access: Int = 1) -> JSONValue
    {
        var e: [String: JSONValue] = [
            "type": "binary", "name": .string(name), "property": .string(property(name, endpoint)),
            "access": .integer(access), "value_on": on, "value_off": off,
        ]
        if let endpoint { e["endpoint"] = .string(endpoint) }
        return .object(e)
    }

    static func enumeration(_ name: String, _ values: [String], access: Int = 1) -> JSONValue {
        [
            "type": "enum", "name": .string(name), "property": .string(name), "access": .integer(access),
            "values": .array(values.map(JSONValue.string)),
        ]
    }

    static func specific(_ type: String, endpoint: String? = nil, _ features: [JSONValue]) -> JSONValue {
        var e: [String: JSONValue] = ["type": .string(type), "features": .array(features)]
        if let endpoint { e["endpoint"] = .string(endpoint) }
        return .object(e)
    }

    static func property(_ name: String, _ endpoint: String?) -> String { endpoint.map { "\(name)_\($0)" } ?? name }
}

extension JSONValue {
    /// An expose with another state key than its name (`fan_state` for a fan's `state`).
    func setting(property: String) -> JSONValue {
        guard case .object(var fields) = self else { return self }
        fields["property"] = .string(property)
        return .object(fields)
    }
}

@Suite("Zigbee2MQTT exposes beyond the fixtures")
struct Zigbee2MQTTExposeTests {
    func values(_ mapping: Zigbee2MQTTMapping, _ payload: JSONValue) -> [String: CharacteristicValue] {
        let decoded = mapping.decode(payload)
        #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        return Dictionary(decoded.updates.map { ("\($0.service)/\($0.characteristic)", $0.value) }, uniquingKeysWith: { _, b in b })
    }

    func write(_ mapping: Zigbee2MQTTMapping, _ service: String, _ characteristic: String, _ value: CharacteristicValue) throws -> String {
        try mapping.encode([.init(service: service, characteristic: characteristic, value: value)]).serialized()
    }

    static let lock = Exposes.specific(
        "lock",
        [
            Exposes.binary("state", on: "LOCK", off: "UNLOCK", access: 7),
            Exposes.enumeration("lock_state", ["not_fully_locked", "locked", "unlocked"]),
        ])

    @Test("locks: target from state, current from lock_state including jammed, writes as LOCK/UNLOCK")
    func lockStates() throws {
        let mapping = try Exposes.device([Self.lock, Exposes.numeric("battery", access: 5, min: 0, max: 100)])
        #expect(mapping.accessory.category == .door_lock)
        #expect(
            values(mapping, ["state": "LOCK", "lock_state": "not_fully_locked"])
                == ["lock_mechanism/lock_target_state": .int(1), "lock_mechanism/lock_current_state": .int(2)])
        for (state, expected) in [("locked", 1), ("unlocked", 0), ("jammed", 2), ("unknown", 3)] {
            #expect(values(mapping, ["lock_state": .string(state)]) == ["lock_mechanism/lock_current_state": .int(expected)])
        }
        #expect(try write(mapping, "lock_mechanism", "lock_target_state", .int(0)) == #"{"state":"UNLOCK"}"#)
        for target in [0, 1] {
            let out = try mapping.encode([.init(service: "lock_mechanism", characteristic: "lock_target_state", value: .int(target))])
            #expect(values(mapping, out)["lock_mechanism/lock_target_state"] == .int(target))
        }
    }

    @Test("a lock without lock_state reports its confirmed state as current")
    func lockWithoutLockState() throws {
        let mapping = try Exposes.device([Exposes.specific("lock", [Exposes.binary("state", on: "LOCK", off: "UNLOCK", access: 7)])])
        #expect(
            values(mapping, ["state": "UNLOCK"]) == [
                "lock_mechanism/lock_target_state": .int(0), "lock_mechanism/lock_current_state": .int(0),
            ])
    }

    @Test("covers: a motor's state is the position state; a cover without position is open or closed")
    func covers() throws {
        let curtain = try Zigbee2MQTTDevicesTests.mapping("curtain")
        #expect(values(curtain, ["motor_state": "opening"]) == ["window_covering/position_state": .int(1)])
        #expect(values(curtain, ["motor_state": "closing", "running": true]) == ["window_covering/position_state": .int(0)])
        let blind = try Exposes.device([Exposes.specific("cover", [Exposes.enumeration("state", ["OPEN", "CLOSE", "STOP"], access: 3)])])
        #expect(blind.accessory["window_covering"]?["target_position"]?.minStep == 100)
        #expect(
            values(blind, ["state": "CLOSE"]) == ["window_covering/current_position": .int(0), "window_covering/target_position": .int(0)])
        #expect(try write(blind, "window_covering", "target_position", .int(100)) == #"{"state":"OPEN"}"#)
        #expect(try write(blind, "window_covering", "target_position", .int(0)) == #"{"state":"CLOSE"}"#)
        #expect(try write(blind, "window_covering", "hold_position", .bool(true)) == #"{"state":"STOP"}"#)
    }

    static let airConditioner = Exposes.specific(
        "climate",
        [
            Exposes.numeric("local_temperature", access: 5),
            Exposes.numeric("occupied_heating_setpoint", access: 7, min: 7, max: 30, step: 0.5),
            Exposes.enumeration("system_mode", ["off", "emergency_heating", "heat", "cool", "auto", "fan_only"], access: 7),
            Exposes.enumeration("running_state", ["idle", "heat", "cool", "fan_only"], access: 5),
        ])

    @Test("thermostats: the modes the device offers, each round-tripping to its own word")
    func thermostatModes() throws {
        let mapping = try Exposes.device([Self.airConditioner])
        let thermostat = try #require(mapping.accessory["thermostat"])
        #expect(thermostat["target_heating_cooling_state"]?.validValues == [0, 1, 2, 3])
        #expect(thermostat["current_heating_cooling_state"]?.validValues == [0, 1, 2])
        #expect(thermostat["target_temperature"]?.minValue == 7 && thermostat["target_temperature"]?.minStep == 0.5)
        for (mode, word) in [(0, "off"), (1, "heat"), (2, "cool"), (3, "auto")] {
            let out = try mapping.encode([.init(service: "thermostat", characteristic: "target_heating_cooling_state", value: .int(mode))])
            #expect(out.serialized() == #"{"system_mode":"\#(word)"}"#)
            #expect(values(mapping, out)["thermostat/target_heating_cooling_state"] == .int(mode))
        }
        #expect(
            values(mapping, ["system_mode": "emergency_heating", "running_state": "cool"])
                == ["thermostat/target_heating_cooling_state": .int(1), "thermostat/current_heating_cooling_state": .int(2)])
        #expect(values(mapping, ["system_mode": "fan_only"]).isEmpty, "a mode HAP has no word for changes nothing")
        #expect(try write(mapping, "thermostat", "target_temperature", .float(21)) == #"{"occupied_heating_setpoint":21}"#)
        #expect(try write(mapping, "thermostat", "target_temperature", .float(21.5)) == #"{"occupied_heating_setpoint":21.5}"#)
    }

    @Test("a TRV without running_state heats while its valve demands heat; without system_mode it only heats")
    func trvDemand() throws {
        let trv = try Exposes.device([
            Exposes.specific(
                "climate",
                [
                    Exposes.numeric("local_temperature"), Exposes.numeric("current_heating_setpoint", access: 7, min: 5, max: 35),
                    Exposes.numeric("pi_heating_demand", min: 0, max: 100),
                ])
        ])
        let thermostat = try #require(trv.accessory["thermostat"])
        #expect(
            thermostat["target_heating_cooling_state"]?.validValues == [1] && thermostat["target_heating_cooling_state"]?.value == .int(1))
        #expect(
            values(trv, ["pi_heating_demand": 40, "current_heating_setpoint": 19.5])
                == ["thermostat/current_heating_cooling_state": .int(1), "thermostat/target_temperature": .float(19.5)])
        #expect(values(trv, ["pi_heating_demand": 0]) == ["thermostat/current_heating_cooling_state": .int(0)])
        let radiator = try Zigbee2MQTTDevicesTests.mapping("bosch_radiator")
        #expect(radiator.accessory["thermostat"]?["current_heating_cooling_state"]?.validValues == [0, 1])
    }

    @Test(
        "a thermostat's child lock (a lock expose on child_lock, as Tuya's and Moes' are) is no door lock: the accessory stays a thermostat"
    )
    func childLockIsNoDoor() throws {
        let thermostat = try Exposes.device([
            Exposes.specific(
                "lock",
                [
                    [
                        "type": "binary", "name": "state", "property": "child_lock", "access": 3,
                        "value_on": "LOCK", "value_off": "UNLOCK",
                    ]
                ]),
            Exposes.specific(
                "climate", [Exposes.numeric("local_temperature"), Exposes.numeric("current_heating_setpoint", access: 7, min: 5, max: 35)]),
        ])
        #expect(thermostat.accessory.category == .thermostat)
        #expect(!thermostat.accessory.services.contains { $0.type == .lock_mechanism })
        // It is a setting: true locks the buttons.
        let childLock = try #require(thermostat.accessory["settings"]?["child_lock"])
        #expect(childLock.type.isWritable && childLock.type.format == .bool && childLock.type.isCustom)
        #expect(
            thermostat.decode(["child_lock": "LOCK"]).updates == [
                .init(service: "settings", characteristic: "child_lock", value: .bool(true))
            ])
        #expect(
            try thermostat.encode([.init(service: "settings", characteristic: "child_lock", value: .bool(false))]) == [
                "child_lock": "UNLOCK"
            ])
        var none = Zigbee2MQTTOverride()
        none.settings = .none
        let hidden = try Exposes.device(
            [
                Exposes.specific(
                    "lock",
                    [["type": "binary", "name": "state", "property": "child_lock", "access": 3, "value_on": "LOCK", "value_off": "UNLOCK"]]),
                Exposes.specific("climate", [Exposes.numeric("local_temperature")]),
            ], override: none)
        #expect(hidden.accessory["settings"] == nil)
        #expect(hidden.unmapped.contains { $0.property == "child_lock" && $0.reason.contains("not a door lock") })
    }

    @Test("settings with bounds that make no sense (reversed, beyond any integer, not finite) never crash a reading; values stay in range")
    func settingBounds() throws {
        let device = try Exposes.device([
            Exposes.numeric("reversed", access: 7, min: 100, max: 10),
            Exposes.numeric("huge", access: 7, min: -1e20, max: 1e20),
            Exposes.numeric("fine", access: 7, min: 0.5, max: 1500, step: 1, unit: "s"),
            Exposes.enumeration("mode", ["eco", "comfort"], access: 3),
            Exposes.binary("led", on: "ON", off: "OFF", access: 2),
        ])
        let settings = try #require(device.accessory["settings"])
        #expect(settings["reversed"]?.minValue == -2_147_483_648 && settings["reversed"]?.maxValue == 2_147_483_647)
        #expect(settings["huge"]?.type.format == .int && settings["huge"]?.maxValue == 2_147_483_647)
        #expect(settings["fine"]?.type.format == .float && settings["fine"]?.minStep == nil, "0.5 + n × 1 never reaches 1500")
        #expect(settings["fine"]?.type.unit == .seconds)
        #expect(settings["led"]?.type.isReadable == false && settings["led"]?.type.isWritable == true)
        var accessory = device.accessory
        for payload: JSONValue in [["huge": 1e300], ["huge": -1e300], ["reversed": 50], ["fine": 2000], ["mode": "comfort"]] {
            let (updates, errors) = device.decode(payload)
            #expect(errors.isEmpty, "\(payload): \(errors)")
            for update in updates {
                #expect(throws: Never.self, "\(payload)") {
                    _ = try accessory.update(service: update.service, characteristic: update.characteristic, value: update.value)
                }
            }
        }
        #expect(device.decode(["huge": 1e300]).updates.first?.value == .int(2_147_483_647))
        #expect(try device.encode([.init(service: "settings", characteristic: "mode", value: .string("eco"))]) == ["mode": "eco"])
    }

    @Test("sensors per endpoint, presence, leaks, carbon monoxide; tamper on every sensor that can show it")
    func sensors() throws {
        let mapping = try Exposes.device([
            Exposes.numeric("temperature", endpoint: "l1"), Exposes.numeric("temperature", endpoint: "l2"),
            Exposes.binary("presence"), Exposes.binary("water_leak"), Exposes.binary("carbon_monoxide"), Exposes.binary("tamper"),
        ])
        #expect(
            Zigbee2MQTTDevicesTests.shape(mapping.accessory) == [
                "temperature_sensor_l1": ["current_temperature", "status_tampered"],
                "temperature_sensor_l2": ["current_temperature", "status_tampered"],
                "occupancy_sensor": ["occupancy_detected", "status_tampered"], "leak_sensor": ["leak_detected", "status_tampered"],
                "carbon_monoxide_sensor": ["carbon_monoxide_detected", "status_tampered"],
            ])
        #expect(
            values(mapping, ["temperature_l2": -3.5, "presence": true, "water_leak": false, "tamper": true]) == [
                "temperature_sensor_l2/current_temperature": .float(-3.5), "occupancy_sensor/occupancy_detected": .int(1),
                "leak_sensor/leak_detected": .int(0), "carbon_monoxide_sensor/status_tampered": .int(1),
                "temperature_sensor_l1/status_tampered": .int(1), "temperature_sensor_l2/status_tampered": .int(1),
                "occupancy_sensor/status_tampered": .int(1), "leak_sensor/status_tampered": .int(1),
            ])
        let dark = try Zigbee2MQTTDevicesTests.mapping("occupancy_sensor")
        #expect(values(dark, ["illuminance": 0]) == ["light_sensor/current_ambient_light_level": .float(0.0001)])
    }

    @Test("vibration and moving are motion; gas is a leak of its own; device_temperature only when included")
    func motionGasAndChipTemperature() throws {
        let vibration = try Exposes.device([Exposes.binary("vibration"), Exposes.numeric("device_temperature")])
        #expect(Zigbee2MQTTDevicesTests.shape(vibration.accessory) == ["motion_sensor": ["motion_detected"]])
        #expect(values(vibration, ["vibration": true, "device_temperature": 30]) == ["motion_sensor/motion_detected": .bool(true)])
        #expect(vibration.unmappedProperties == ["device_temperature"])
        let both = try Exposes.device([
            Exposes.binary("occupancy"), Exposes.binary("moving"), Exposes.binary("water_leak"), Exposes.binary("gas"),
        ])
        #expect(
            Zigbee2MQTTDevicesTests.shape(both.accessory) == [
                "motion_sensor": ["motion_detected"], "motion_sensor_moving": ["motion_detected"],
                "leak_sensor": ["leak_detected"], "leak_sensor_gas": ["leak_detected"],
            ])
        #expect(
            values(both, ["moving": true, "gas": true]) == [
                "motion_sensor_moving/motion_detected": .bool(true), "leak_sensor_gas/leak_detected": .int(1),
            ])

        let json: JSONValue = [
            "ieee_address": "0x00124b0000000001", "friendly_name": "plug", "type": "Router", "supported": true,
            "interview_state": "SUCCESSFUL",
            "definition": ["model": "M", "vendor": "V", "description": "Plug", "exposes": [Exposes.numeric("device_temperature")]],
        ]
        let device = try #require(Zigbee2MQTTDevice(json: json))
        let included = try Zigbee2MQTTMapping.build(device, override: Zigbee2MQTTOverride(includeProperties: ["device_temperature"])).get()
        #expect(Zigbee2MQTTDevicesTests.shape(included.accessory) == ["temperature_sensor_device": ["current_temperature"]])
        #expect(values(included, ["device_temperature": 41]) == ["temperature_sensor_device/current_temperature": .int(41)])
    }

    @Test("air quality: the worst reading's level, densities where HAP has them, and a CO2 sensor beside it")
    func airQuality() throws {
        let monitor = try Exposes.device([
            Exposes.numeric("co2"), Exposes.numeric("pm25"), Exposes.numeric("voc_index"), Exposes.numeric("formaldehyd"),
            Exposes.numeric("temperature"),
        ])
        #expect(
            Zigbee2MQTTDevicesTests.shape(monitor.accessory) == [
                "temperature_sensor": ["current_temperature"],
                "air_quality_sensor": ["air_quality", "pm2_5_density", "carbon_dioxide_level"],
                "carbon_dioxide_sensor": ["carbon_dioxide_detected", "carbon_dioxide_level"],
            ])
        #expect(monitor.unmappedProperties.isEmpty, "\(monitor.unmappedProperties)")
        // All excellent; then PM2.5 at 40 µg/m³ (fair) is the worst; CO2 at 1,600 ppm (inferior, and abnormal) is worse.
        #expect(
            values(monitor, ["co2": 420, "pm25": 4, "voc_index": 80, "formaldehyd": 0.01]) == [
                "air_quality_sensor/air_quality": .int(1), "air_quality_sensor/pm2_5_density": .float(4),
                "air_quality_sensor/carbon_dioxide_level": .float(420),
                "carbon_dioxide_sensor/carbon_dioxide_detected": .int(0), "carbon_dioxide_sensor/carbon_dioxide_level": .float(420),
            ])
        #expect(values(monitor, ["co2": 420, "pm25": 40, "voc_index": 80])["air_quality_sensor/air_quality"] == .int(3))
        let stuffy = values(monitor, ["co2": 1600, "pm25": 40, "voc_index": 80, "formaldehyd": 0.01])
        #expect(stuffy["air_quality_sensor/air_quality"] == .int(4) && stuffy["carbon_dioxide_sensor/carbon_dioxide_detected"] == .int(1))
        #expect(values(monitor, ["pm25": 2000])["air_quality_sensor/pm2_5_density"] == .float(1000), "kept within HAP's range")

        // A device that says the level in words: those words, and the densities still shown.
        let voc = Exposes.numeric("voc", unit: "µg/m³")
        let worded = try Exposes.device([
            Exposes.enumeration(
                "air_quality", ["excellent", "good", "moderate", "poor", "unhealthy", "hazardous", "out_of_range", "unknown"]), voc,
        ])
        #expect(Zigbee2MQTTDevicesTests.shape(worded.accessory) == ["air_quality_sensor": ["air_quality", "voc_density"]])
        #expect(
            values(worded, ["air_quality": "moderate", "voc": 250]) == [
                "air_quality_sensor/air_quality": .int(3), "air_quality_sensor/voc_density": .float(250),
            ])
        #expect(values(worded, ["air_quality": "hazardous"]) == ["air_quality_sensor/air_quality": .int(5)])
        // TVOC in ppb is a density too (1 ppb of the reference mixture is 4.5 µg/m³), and counts for the level.
        let ppb = try Exposes.device([Exposes.numeric("voc", unit: "ppb")])
        #expect(Zigbee2MQTTDevicesTests.shape(ppb.accessory) == ["air_quality_sensor": ["air_quality", "voc_density"]])
        #expect(values(ppb, ["voc": 150]) == ["air_quality_sensor/air_quality": .int(2), "air_quality_sensor/voc_density": .float(675)])
    }

    @Test("covers: tilt is the horizontal tilt angle both ways; a blind that only tilts shows its tilt as its position")
    func tilt() throws {
        let blind = try Exposes.device([
            Exposes.specific(
                "cover",
                [
                    Exposes.enumeration("state", ["OPEN", "CLOSE", "STOP"], access: 7),
                    Exposes.numeric("position", access: 7, min: 0, max: 100),
                    Exposes.numeric("tilt", access: 7, min: 0, max: 100),
                ])
        ])
        #expect(
            Zigbee2MQTTDevicesTests.shape(blind.accessory)["window_covering"] == [
                "current_position", "target_position", "position_state", "hold_position", "current_horizontal_tilt_angle",
                "target_horizontal_tilt_angle",
            ])
        #expect(
            values(blind, ["position": 40, "tilt": 25]) == [
                "window_covering/current_position": .int(40), "window_covering/target_position": .int(40),
                "window_covering/current_horizontal_tilt_angle": .int(-45), "window_covering/target_horizontal_tilt_angle": .int(-45),
            ])
        #expect(try write(blind, "window_covering", "target_horizontal_tilt_angle", .int(45)) == #"{"tilt":75}"#)
        #expect(try write(blind, "window_covering", "target_horizontal_tilt_angle", .int(-90)) == #"{"tilt":0}"#)

        let tiltOnly = try Exposes.device([Exposes.specific("cover", [Exposes.numeric("tilt", access: 7, min: 0, max: 100)])])
        #expect(
            values(tiltOnly, ["tilt": 100]) == [
                "window_covering/current_position": .int(100), "window_covering/target_position": .int(100),
                "window_covering/current_horizontal_tilt_angle": .int(90), "window_covering/target_horizontal_tilt_angle": .int(90),
            ])
        #expect(try write(tiltOnly, "window_covering", "target_position", .int(30)) == #"{"tilt":30}"#)
    }

    @Test("fans: active from fan_state, speed from the mode's low/medium/high, auto as the target fan state; writes go back as words")
    func fan() throws {
        let fan = try Exposes.device([
            Exposes.specific(
                "fan",
                [
                    Exposes.binary("state", on: "ON", off: "OFF", access: 7).setting(property: "fan_state"),
                    Exposes.enumeration("mode", ["off", "low", "medium", "high", "on", "auto", "smart"], access: 7).setting(
                        property: "fan_mode"),
                ])
        ])
        #expect(fan.accessory.category == .fan)
        #expect(Zigbee2MQTTDevicesTests.shape(fan.accessory) == ["fanv2": ["active", "rotation_speed", "target_fan_state"]])
        #expect(
            values(fan, ["fan_state": "ON", "fan_mode": "medium"]) == [
                "fanv2/active": .int(1), "fanv2/rotation_speed": .int(66), "fanv2/target_fan_state": .int(0),
            ])
        #expect(values(fan, ["fan_state": "ON", "fan_mode": "auto"]) == ["fanv2/active": .int(1), "fanv2/target_fan_state": .int(1)])
        #expect(try write(fan, "fanv2", "active", .int(0)) == #"{"fan_state":"OFF"}"#)
        #expect(try write(fan, "fanv2", "rotation_speed", .int(10)) == #"{"fan_mode":"low"}"#)
        #expect(try write(fan, "fanv2", "rotation_speed", .int(70)) == #"{"fan_mode":"high"}"#)
        #expect(try write(fan, "fanv2", "rotation_speed", .int(0)) == #"{"fan_mode":"off"}"#)
        #expect(try write(fan, "fanv2", "target_fan_state", .int(1)) == #"{"fan_mode":"auto"}"#)
        #expect(fan.unmapped.isEmpty, "\(fan.unmapped)")

        // Only a mode: active is the mode not being off.
        let modeOnly = try Exposes.device([
            Exposes.specific(
                "fan",
                [
                    Exposes.enumeration("mode", ["off", "low", "high"], access: 7).setting(property: "fan_mode")
                ])
        ])
        #expect(values(modeOnly, ["fan_mode": "off"]) == ["fanv2/active": .int(0), "fanv2/rotation_speed": .int(0)])
        #expect(try write(modeOnly, "fanv2", "active", .int(1)) == #"{"fan_mode":"high"}"#)
    }

    @Test("covers: invert_position mirrors a position that counts from open, both ways")
    func invertedCover() throws {
        let json: JSONValue = [
            "ieee_address": "0x00124b0000000001", "friendly_name": "blind", "type": "EndDevice", "supported": true,
            "interview_state": "SUCCESSFUL",
            "definition": [
                "model": "M", "vendor": "V", "description": "Blind",
                "exposes": [
                    Exposes.specific(
                        "cover",
                        [
                            Exposes.enumeration("state", ["OPEN", "CLOSE", "STOP"], access: 7),
                            Exposes.numeric("position", access: 7, min: 0, max: 100),
                        ])
                ],
            ],
        ]
        let device = try #require(Zigbee2MQTTDevice(json: json))
        var override = Zigbee2MQTTOverride()
        override.invertPosition = true
        let blind = try Zigbee2MQTTMapping.build(device, override: override).get()
        #expect(
            values(blind, ["position": 30]) == ["window_covering/current_position": .int(70), "window_covering/target_position": .int(70)])
        #expect(try write(blind, "window_covering", "target_position", .int(100)) == #"{"position":0}"#)
        let plain = try Zigbee2MQTTMapping.build(device).get()
        #expect(values(plain, ["position": 30])["window_covering/current_position"] == .int(30))
    }

    @Test("lights: 1 of 254 is 1 %, never 0 % while on")
    func dimmest() throws {
        let bulb = try Zigbee2MQTTDevicesTests.mapping("bulb")
        #expect(values(bulb, ["brightness": 1]) == ["lightbulb/brightness": .int(1)])
        #expect(values(bulb, ["brightness": 0]) == ["lightbulb/brightness": .int(0)])
        #expect(values(bulb, ["brightness": 254]) == ["lightbulb/brightness": .int(100)])
    }

    @Test("battery: levels are whole percentages; battery_low alone still makes a battery service; low battery shows on the sensors too")
    func battery() throws {
        let halves = try Exposes.device([Exposes.binary("contact", on: false, off: true), Exposes.numeric("battery", min: 0, max: 100)])
        #expect(
            values(halves, ["battery": 19.5]) == [
                "battery_service/battery_level": .int(20), "battery_service/status_low_battery": .int(1),
                "contact_sensor/status_low_battery": .int(1),
            ])
        let lowOnly = try Exposes.device([Exposes.binary("smoke"), Exposes.binary("battery_low")])
        #expect(lowOnly.accessory["battery_service"]?["battery_level"]?.value == nil)
        #expect(
            values(lowOnly, ["battery_low": true]) == [
                "battery_service/status_low_battery": .int(1), "smoke_sensor/status_low_battery": .int(1),
            ])
    }

    @Test("lights: a colour-temperature range wider than HAP's is cut to 140–500; reported mired are whole")
    func wideColorTemperature() throws {
        let strip = try Exposes.device([
            Exposes.specific(
                "light",
                [
                    Exposes.binary("state", on: "ON", off: "OFF", access: 7), Exposes.numeric("color_temp", access: 7, min: 100, max: 600),
                ])
        ])
        let ct = try #require(strip.accessory["lightbulb"]?["color_temperature"])
        #expect(ct.minValue == 140 && ct.maxValue == 500)
        #expect(values(strip, ["color_temp": 370.4]) == ["lightbulb/color_temperature": .int(370)])
    }

    @Test("multi-gang plugs: each outlet is in use by its own meter")
    func meteredGangs() throws {
        let plug = try Exposes.device(
            [
                Exposes.specific("switch", endpoint: "l1", [Exposes.binary("state", on: "ON", off: "OFF", endpoint: "l1", access: 7)]),
                Exposes.specific("switch", endpoint: "l2", [Exposes.binary("state", on: "ON", off: "OFF", endpoint: "l2", access: 7)]),
                Exposes.numeric("power", endpoint: "l1"), Exposes.numeric("power", endpoint: "l2"),
            ], description: "Double socket")
        #expect(plug.accessory.services.map(\.id) == ["outlet_l1", "outlet_l2"])
        #expect(
            values(plug, ["power_l1": 0, "power_l2": 12.5]) == [
                "outlet_l1/outlet_in_use": .bool(false), "outlet_l2/outlet_in_use": .bool(true),
            ])
        #expect(try write(plug, "outlet_l2", "on", .bool(true)) == #"{"state_l2":"ON"}"#)
    }
}
