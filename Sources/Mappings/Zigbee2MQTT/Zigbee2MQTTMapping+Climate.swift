import HomeModel
import JSON

extension Builder {
    /// Thermostats and TRVs: heating setpoint, `system_mode` as the target mode, `running_state`
    /// (or, on TRVs without it, `pi_heating_demand` > 0) as the current mode. A thermostat that also
    /// has `occupied_cooling_setpoint` gets both setpoints as the thresholds too, so the cooling one
    /// can be read and written (the target temperature stays the heating setpoint). Celsius only:
    /// Zigbee2MQTT always publishes °C.
    mutating func addClimate(_ climate: Expose) {
        guard let local = climate.feature("local_temperature"), let localKey = local.property else { return }
        let setpoint = climate.feature("occupied_heating_setpoint") ?? climate.feature("current_heating_setpoint")
        let systemMode = climate.feature("system_mode")
        let running = climate.feature("running_state")
        let demand = running == nil ? climate.feature("pi_heating_demand") : nil
        let cooling = setpoint == nil ? nil : climate.feature("occupied_cooling_setpoint").flatMap { $0.property == nil ? nil : $0 }
        let targets = systemMode.map { $0.values.compactMap { Self.targetModes[$0] } } ?? []
        let offered = targets.isEmpty ? [1] : Array(Set(targets)).sorted()
        let currents =
            running.map { Set([0] + $0.values.compactMap { Self.currentModes[$0] }).sorted() } ?? (demand != nil ? [0, 1] : [0, 1, 2])
        var characteristics = [
            Characteristic(.current_heating_cooling_state, value: .int(0), validValues: currents),
            Characteristic(.target_heating_cooling_state, value: offered.count == 1 ? .int(offered[0]) : nil, validValues: offered),
            Characteristic(.current_temperature),
            Characteristic(
                .target_temperature, minValue: setpoint?.valueMin, maxValue: setpoint?.valueMax, minStep: setpoint?.valueStep ?? 0.5),
            Characteristic(.temperature_display_units, value: .int(0)),
        ]
        if let cooling, let setpoint {
            characteristics += [
                Characteristic(
                    .cooling_threshold_temperature, minValue: cooling.valueMin, maxValue: cooling.valueMax,
                    minStep: cooling.valueStep ?? 0.5),
                Characteristic(
                    .heating_threshold_temperature, minValue: setpoint.valueMin, maxValue: setpoint.valueMax,
                    minStep: setpoint.valueStep ?? 0.5),
            ]
        }
        let service = addService(.thermostat, endpoint: climate.endpoint, primary: true, characteristics)
        mapping.read(localKey, into: service, "current_temperature", .number)
        if let setpoint, let key = setpoint.property {
            mapping.read(key, into: service, "target_temperature", .number)
            if setpoint.isSettable { mapping.write(service, "target_temperature", .number(key: key)) }
        }
        let thresholds = [(cooling, "cooling_threshold_temperature"), (cooling.flatMap { _ in setpoint }, "heating_threshold_temperature")]
        for (feature, name) in thresholds {
            guard let feature, let key = feature.property else { continue }
            mapping.read(key, into: service, name, .number)
            if feature.isSettable { mapping.write(service, name, .number(key: key)) }
        }
        if let systemMode, let key = systemMode.property {
            mapping.read(key, into: service, "target_heating_cooling_state", .enumeration(Self.targetModes))
            if systemMode.isSettable {
                // Back to one of the device's own words, the plain one where it has several (`heat`, not `emergency_heating`).
                var names: [Int: String] = [:]
                for word in systemMode.values {
                    if let mode = Self.targetModes[word], names[mode] == nil || Self.targetNames[mode] == word { names[mode] = word }
                }
                mapping.write(service, "target_heating_cooling_state", .enumeration(key: key, names))
            }
        }
        if let running, let key = running.property {
            mapping.read(key, into: service, "current_heating_cooling_state", .enumeration(Self.currentModes))
        } else if let demand, let key = demand.property {
            mapping.read(key, into: service, "current_heating_cooling_state", .positive(.int(1), .int(0)))
        }
        for feature in [local, setpoint, systemMode, running, demand, cooling] { use(feature) }
        claim(.thermostat)
    }

    /// `system_mode` to HAP's target mode (off, heat, cool, auto); fan_only, dry and sleep have no HAP word.
    static let targetModes: [String: Int] = ["off": 0, "heat": 1, "emergency_heating": 1, "cool": 2, "precooling": 2, "auto": 3]
    static let targetNames: [Int: String] = [0: "off", 1: "heat", 2: "cool", 3: "auto"]
    /// `running_state` to HAP's current mode (off, heat, cool).
    static let currentModes: [String: Int] = ["idle": 0, "heat": 1, "cool": 2, "fan_only": 0]
}
