import HomeModel
import JSON

extension Builder {
    mutating func addSensors() {
        if let e = generic("temperature"), let key = e.property {
            let service = addService(.temperature_sensor, endpoint: e.endpoint, [Characteristic(.current_temperature)])
            mapping.read(key, into: service, "current_temperature", .number)
            use(e)
        }
        if let e = generic("humidity"), let key = e.property {
            let service = addService(.humidity_sensor, endpoint: e.endpoint, [Characteristic(.current_relative_humidity)])
            mapping.read(key, into: service, "current_relative_humidity", .number)
            use(e)
        }
        if let e = generic("illuminance_lux") ?? generic("illuminance"), let key = e.property {
            // HAP's light level starts at 0.0001 lux; a dark room is that, not an error.
            let service = addService(.light_sensor, endpoint: e.endpoint, [Characteristic(.current_ambient_light_level)])
            mapping.read(key, into: service, "current_ambient_light_level", .atLeast(0.0001))
            use(e)
        }
        if let e = generic("occupancy"), let key = e.property {
            let (on, off) = (e.valueOn ?? true, e.valueOff ?? false)
            if override.service == .occupancy {
                let service = addService(.occupancy_sensor, endpoint: e.endpoint, [Characteristic(.occupancy_detected)])
                mapping.read(key, into: service, "occupancy_detected", .binary(on: on, off: off, whenOn: .int(1), whenOff: .int(0)))
            } else {
                let service = addService(.motion_sensor, endpoint: e.endpoint, [Characteristic(.motion_detected)])
                mapping.read(key, into: service, "motion_detected", .onOff(on: on, off: off))
            }
            use(e)
        }
        if let e = generic("contact"), let key = e.property {
            // Zigbee2MQTT's contact expose is "on" when open (value_on false): contact=true means closed,
            // which is HAP's 0, contact detected.
            let service = addService(.contact_sensor, endpoint: e.endpoint, [Characteristic(.contact_sensor_state)])
            mapping.read(key, into: service, "contact_sensor_state", .binary(on: e.valueOn ?? false, off: e.valueOff ?? true, whenOn: .int(1), whenOff: .int(0)))
            use(e)
        }
        addDetector("water_leak", .leak_sensor, .leak_detected)
        addDetector("smoke", .smoke_sensor, .smoke_detected)
        addDetector("carbon_monoxide", .carbon_monoxide_sensor, .carbon_monoxide_detected)
        if let e = generic("tamper"), let key = e.property,
           let service = mapping.accessory.services.first(where: { [.smoke_sensor, .leak_sensor, .contact_sensor, .motion_sensor].contains($0.type) })?.id {
            appendCharacteristic(.status_tampered, to: service)
            mapping.read(key, into: service, "status_tampered", .binary(on: e.valueOn ?? true, off: e.valueOff ?? false, whenOn: .int(1), whenOff: .int(0)))
            use(e)
        }
    }

    private mutating func addDetector(_ property: String, _ type: ServiceType, _ characteristic: CharacteristicType) {
        guard let e = generic(property), let key = e.property else { return }
        let service = addService(type, endpoint: e.endpoint, [Characteristic(characteristic)])
        mapping.read(key, into: service, characteristic.name, .binary(on: e.valueOn ?? true, off: e.valueOff ?? false, whenOn: .int(1), whenOff: .int(0)))
        use(e)
    }

    mutating func appendCharacteristic(_ type: CharacteristicType, to service: String) {
        guard let index = mapping.accessory.serviceIndex(service) else { return }
        mapping.accessory.services[index].characteristics.append(Characteristic(type))
    }

    /// Battery level and low battery; `battery_low` when the device says so, else below 20 %.
    mutating func addBattery() {
        let level = generic("battery"), low = generic("battery_low")
        guard level != nil || low != nil else { return }
        var characteristics = [Characteristic(.battery_level), Characteristic(.charging_state, value: .int(2)), Characteristic(.status_low_battery)]
        if level == nil { characteristics.removeFirst() }
        let service = addService(.battery_service, characteristics)
        if let level, let key = level.property {
            mapping.read(key, into: service, "battery_level", .number)
            if low == nil { mapping.read(key, into: service, "status_low_battery", .lowBelow(20)) }
            use(level)
        }
        if let low, let key = low.property {
            mapping.read(key, into: service, "status_low_battery", .binary(on: low.valueOn ?? true, off: low.valueOff ?? false, whenOn: .int(1), whenOff: .int(0)))
            use(low)
        }
    }
}
