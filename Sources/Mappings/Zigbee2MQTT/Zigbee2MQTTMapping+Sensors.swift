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
        // Vibration and movement are motion to HomeKit.
        for name in ["vibration", "moving"] {
            for e in generics(name, type: "binary") {
                let existing = mapping.accessory.services.contains { $0.type == .motion_sensor }
                addReading(
                    e, .motion_sensor, .motion_detected, .onOff(on: e.valueOn ?? true, off: e.valueOff ?? false),
                    endpoint: existing ? (e.endpoint.map { "\(name)_\($0)" } ?? name) : e.endpoint)
            }
        }
        for e in generics("water_leak", type: "binary") { addReading(e, .leak_sensor, .leak_detected, Self.detected(e)) }
        // HomeKit has no gas sensor: a gas alarm is a leak, in a service of its own named for it.
        for e in generics("gas", type: "binary") {
            addReading(e, .leak_sensor, .leak_detected, Self.detected(e), endpoint: e.endpoint.map { "gas_\($0)" } ?? "gas")
        }
        for e in generics("smoke", type: "binary") { addReading(e, .smoke_sensor, .smoke_detected, Self.detected(e)) }
        for e in generics("carbon_monoxide", type: "binary") {
            addReading(e, .carbon_monoxide_sensor, .carbon_monoxide_detected, Self.detected(e))
        }
        // The chip's own temperature is not the room's: only when the mapping file includes it.
        if override.includeProperties.contains("device_temperature") {
            for e in generics("device_temperature", type: "numeric") {
                addReading(e, .temperature_sensor, .current_temperature, .number, endpoint: e.endpoint.map { "device_\($0)" } ?? "device")
            }
        }
        // HAP has no air pressure: Eve's service, which the Eve app shows (as homebridge-z2m does).
        for e in generics("pressure", type: "numeric") {
            addReading(e, .air_pressure_sensor, .air_pressure, .scaled(e.unit?.lowercased() == "kpa" ? 10 : 1, within: 300...1100))
        }
        addAirQuality()
        addTamper()
    }

    /// Air quality levels (HAP: 1 excellent … 5 poor) by reading: a value up to the first bound is
    /// excellent, up to the second good, then fair, inferior, and poor above the last. The level
    /// shown is the worst of the readings in one message. Documented in mappings/README.md.
    static let airQualityBounds: [(name: String, bounds: [Double])] = [
        ("pm25", [12, 35, 55, 150]),  // µg/m³, the US EPA's PM2.5 breakpoints
        ("pm10", [54, 154, 254, 354]),  // µg/m³, the US EPA's PM10 breakpoints
        ("co2", [800, 1000, 1500, 2000]),  // ppm
        ("voc_index", [100, 150, 250, 400]),  // Sensirion's VOC index, 100 the average
        ("formaldehyd", [0.03, 0.06, 0.1, 0.3]),  // mg/m³, the WHO's 0.1 as fair's limit
    ]
    /// TVOC by its unit: the German Federal Environment Agency's levels.
    static let vocBounds: [String: [Double]] = [
        "ppb": [65, 220, 660, 2200], "ppm": [0.065, 0.22, 0.66, 2.2], "µg/m³": [300, 1000, 3000, 10000], "mg/m³": [0.3, 1, 3, 10],
    ]
    /// TVOC as HAP's density (µg/m³), by its unit. A volume share becomes a density through the
    /// gas's molar mass: TVOC is taken as a reference mixture of 110 g/mol at 25 °C (24.45 l/mol),
    /// which makes 1 ppb 4.5 µg/m³, as the ppb levels above assume.
    static let vocDensityFactor: [String: Double] = ["µg/m³": 1, "mg/m³": 1000, "ppb": 4.5, "ppm": 4500]
    /// Zigbee2MQTT's `air_quality` words as HAP's levels.
    static let airQualityWords = [
        "excellent": 1, "good": 2, "moderate": 3, "fair": 3, "poor": 4, "inferior": 4, "unhealthy": 5,
        "very_unhealthy": 5, "hazardous": 5, "out_of_range": 0, "unknown": 0,
    ]
    /// Above this many ppm of CO2 HomeKit shows the level as abnormal.
    static let carbonDioxideAbnormal = 1200.0

    /// An air quality sensor from whatever the device measures of the air, with the densities HAP
    /// has characteristics for, and a carbon dioxide sensor where CO2 is measured.
    mutating func addAirQuality() {
        let word = generics("air_quality", type: "enum").first
        var readings: [(Expose, [Double])] = Self.airQualityBounds.compactMap { entry in
            generics(entry.name, type: "numeric").first.map { ($0, entry.bounds) }
        }
        let voc = generics("voc", type: "numeric").first
        let vocUnit = Self.normalizedUnit(voc?.unit) ?? "ppb"
        if let voc, let bounds = Self.vocBounds[vocUnit] { readings.append((voc, bounds)) }
        guard word != nil || !readings.isEmpty else { return }
        // Each density HAP has, and the factor that makes the reading that density.
        let densities: [(name: String, type: CharacteristicType, factor: Double)] =
            [("pm25", .pm2_5_density, 1), ("pm10", .pm10_density, 1)]
            + (Self.vocDensityFactor[vocUnit].map { [("voc", .voc_density, $0)] } ?? [])
        var characteristics = [Characteristic(.air_quality, value: .int(0))]
        for density in densities where readings.contains(where: { $0.0.name == density.name }) {
            characteristics.append(Characteristic(density.type))
        }
        if readings.contains(where: { $0.0.name == "co2" }) { characteristics.append(Characteristic(.carbon_dioxide_level)) }
        let service = addService(.air_quality_sensor, characteristics)
        if let word, let key = word.property {
            mapping.read(key, into: service, "air_quality", .enumeration(Self.airQualityWords))
            use(word)
        }
        for (e, bounds) in readings {
            guard let key = e.property else { continue }
            // Under the device's own word when a message has one (decode), else the readings'.
            mapping.read(key, into: service, "air_quality", .level(bounds))
            if let density = densities.first(where: { $0.name == e.name }) {
                let (low, high) = (density.type.minValue ?? 0, density.type.maxValue ?? 1000)
                mapping.read(
                    key, into: service, density.type.name, density.factor == 1 ? .within(low, high) : .scaled(density.factor, within: low...high))
            }
            if e.name == "co2" { mapping.read(key, into: service, "carbon_dioxide_level", .within(0, 100_000)) }
            use(e)
        }
        if let co2 = readings.first(where: { $0.0.name == "co2" })?.0, let key = co2.property {
            let sensor = addService(
                .carbon_dioxide_sensor, [Characteristic(.carbon_dioxide_detected), Characteristic(.carbon_dioxide_level)])
            mapping.read(key, into: sensor, "carbon_dioxide_detected", .above(Self.carbonDioxideAbnormal))
            mapping.read(key, into: sensor, "carbon_dioxide_level", .within(0, 100_000))
        }
    }

    /// `ug/m3`, `µg/m³` and `μg/m³` (a Greek mu) are one unit.
    static func normalizedUnit(_ unit: String?) -> String? {
        switch unit {
        case "µg/m³", "μg/m³", "ug/m3", "ug/m³", "µg/m3", "μg/m3": "µg/m³"
        case "mg/m³", "mg/m3": "mg/m³"
        default: unit
        }
    }

    /// A binary expose as HAP's 0/1 "detected" enums.
    static func detected(_ e: Expose) -> Rule {
        .binary(on: e.valueOn ?? true, off: e.valueOff ?? false, whenOn: .int(1), whenOff: .int(0))
    }

    private mutating func addReading(
        _ e: Expose, _ type: ServiceType, _ characteristic: CharacteristicType, _ rule: Rule,
        endpoint: String?? = nil
    ) {
        guard let key = e.property else { return }
        let service = addService(type, endpoint: endpoint ?? e.endpoint, [Characteristic(characteristic)])
        mapping.read(key, into: service, characteristic.name, rule)
        use(e)
    }

    /// Tamper has no service of its own: it is a status of every sensor the device has that HAP lets carry it.
    private mutating func addTamper() {
        guard let e = generic("tamper"), e.type == "binary", let key = e.property else { return }
        for index in mapping.accessory.services.indices where mapping.accessory.services[index].type.optional.contains(.status_tampered) {
            mapping.accessory.services[index].characteristics.append(Characteristic(.status_tampered))
            mapping.read(key, into: mapping.accessory.services[index].id, "status_tampered", Self.detected(e))
            use(e)
        }
    }

    /// Battery level and low battery; `battery_low` when the device says so, else below 20 %.
    mutating func addBattery() {
        let level = generic("battery").flatMap { $0.type == "numeric" ? $0 : nil }
        let low = generic("battery_low").flatMap { $0.type == "binary" ? $0 : nil }
        guard level != nil || low != nil else { return }
        // battery_level is required even when only battery_low is known; it stays without a value then.
        let service = addService(
            .battery_service,
            [
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
        // Low battery is also a status of each sensor, where HomeKit shows it on the sensor's tile.
        let (key, rule): (String?, Rule) = low.map { ($0.property, Self.detected($0)) } ?? (level?.property, .lowBelow(20))
        guard let key else { return }
        for index in mapping.accessory.services.indices where mapping.accessory.services[index].type.optional.contains(.status_low_battery)
        {
            mapping.accessory.services[index].characteristics.append(Characteristic(.status_low_battery))
            mapping.read(key, into: mapping.accessory.services[index].id, "status_low_battery", rule)
        }
    }
}
