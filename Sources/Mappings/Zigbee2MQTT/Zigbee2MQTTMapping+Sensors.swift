import HomeModel
import JSON

extension Builder {
    /// Standalone readings, one service per expose and endpoint (`temperature_sensor_l1`).
    mutating func addSensors() {
        for e in generics("temperature", type: "numeric") {
            addReading(e, .temperature_sensor, .current_temperature, .number)
        }
        for e in generics("humidity", type: "numeric") {
            addReading(e, .humidity_sensor, .current_relative_humidity, .number)
        }
        // 1.x published raw `illuminance` next to `illuminance_lux`; lux is what HAP wants.
        let lux = generics("illuminance_lux", type: "numeric")
        for e in lux.isEmpty ? generics("illuminance", type: "numeric") : lux {
            // HAP's light level starts at 0.0001 lux; a dark room is that, not an error.
            addReading(e, .light_sensor, .current_ambient_light_level, .atLeast(0.0001))
        }
        for e in generics("occupancy", type: "binary") {
            if override.service == .occupancy {
                addReading(e, .occupancy_sensor, .occupancy_detected, Self.detected(e))
            } else {
                addReading(e, .motion_sensor, .motion_detected, .onOff(on: e.valueOn ?? true, off: e.valueOff ?? false))
            }
        }
        // mmWave presence is someone being there, not movement.
        for e in generics("presence", type: "binary") {
            addReading(e, .occupancy_sensor, .occupancy_detected, Self.detected(e))
        }
        for e in generics("contact", type: "binary") {
            // The contact expose is "on" when open (value_on false): contact=true means closed,
            // which is HAP's 0, contact detected.
            let rule = Rule.binary(on: e.valueOn ?? false, off: e.valueOff ?? true, whenOn: .int(1), whenOff: .int(0))
            addReading(e, .contact_sensor, .contact_sensor_state, rule)
        }
        for e in generics("water_leak", type: "binary") { addReading(e, .leak_sensor, .leak_detected, Self.detected(e)) }
        for e in generics("smoke", type: "binary") { addReading(e, .smoke_sensor, .smoke_detected, Self.detected(e)) }
        for e in generics("carbon_monoxide", type: "binary") {
            addReading(e, .carbon_monoxide_sensor, .carbon_monoxide_detected, Self.detected(e))
        }
        addTamper()
    }

    /// A binary expose as HAP's 0/1 "detected" enums.
    static func detected(_ e: Expose) -> Rule {
        .binary(on: e.valueOn ?? true, off: e.valueOff ?? false, whenOn: .int(1), whenOff: .int(0))
    }

    private mutating func addReading(_ e: Expose, _ type: ServiceType, _ characteristic: CharacteristicType, _ rule: Rule) {
        guard let key = e.property else { return }
        let service = addService(type, endpoint: e.endpoint, [Characteristic(characteristic)])
        mapping.read(key, into: service, characteristic.name, rule)
        use(e)
    }

    /// Tamper has no service of its own: it goes on the sensor it most likely guards.
    private mutating func addTamper() {
        let carriers: [ServiceType] = [.smoke_sensor, .carbon_monoxide_sensor, .leak_sensor, .contact_sensor, .motion_sensor, .occupancy_sensor]
        let services = mapping.accessory.services
        guard let e = generic("tamper"), e.type == "binary", let key = e.property,
              let index = carriers.lazy.compactMap({ type in services.firstIndex { $0.type == type } }).first else { return }
        let service = mapping.accessory.services[index].id
        mapping.accessory.services[index].characteristics.append(Characteristic(.status_tampered))
        mapping.read(key, into: service, "status_tampered", Self.detected(e))
        use(e)
    }

    /// Battery level and low battery; `battery_low` when the device says so, else below 20 %.
    mutating func addBattery() {
        let level = generic("battery").flatMap { $0.type == "numeric" ? $0 : nil }
        let low = generic("battery_low").flatMap { $0.type == "binary" ? $0 : nil }
        guard level != nil || low != nil else { return }
        // battery_level is required even when only battery_low is known; it stays without a value then.
        let service = addService(.battery_service, [
            Characteristic(.battery_level), Characteristic(.charging_state, value: .int(2)), Characteristic(.status_low_battery),
        ])
        if let level, let key = level.property {
            mapping.read(key, into: service, "battery_level", .whole)
            if low == nil { mapping.read(key, into: service, "status_low_battery", .lowBelow(20)) }
            use(level)
        }
        if let low, let key = low.property {
            mapping.read(key, into: service, "status_low_battery", Self.detected(low))
            use(low)
        }
    }
}
