import HomeModel
import JSON

extension Builder {
    mutating func addLight(_ light: Expose) {
        guard let state = light.feature("state"), let key = state.property else { return }
        var characteristics = [Characteristic(.on)]
        let brightness = light.feature("brightness")
        let colorTemp = light.feature("color_temp")
        let colors = light.features.filter { $0.type == "composite" && $0.property == "color" }
        if brightness != nil { characteristics.append(Characteristic(.brightness)) }
        if let colorTemp {
            characteristics.append(Characteristic(.color_temperature, minValue: colorTemp.valueMin, maxValue: colorTemp.valueMax))
        }
        if !colors.isEmpty { characteristics += [Characteristic(.hue), Characteristic(.saturation)] }
        let service = addService(.lightbulb, endpoint: light.endpoint, primary: light.endpoint == nil, characteristics)
        let (on, off) = (state.valueOn ?? "ON", state.valueOff ?? "OFF")
        mapping.read(key, into: service, "on", .onOff(on: on, off: off))
        mapping.write(service, "on", .onOff(key: key, on: on, off: off))
        if let brightness, let property = brightness.property {
            mapping.read(property, into: service, "brightness", .percentOf254)
            mapping.write(service, "brightness", .percentOf254(key: property))
        }
        if let colorTemp, let property = colorTemp.property {
            mapping.read(property, into: service, "color_temperature", .number)
            mapping.write(service, "color_temperature", .number(key: property))
        }
        if !colors.isEmpty {
            mapping.read("color", into: service, "hue", .hue)
            mapping.read("color", into: service, "saturation", .saturation)
            mapping.write(service, "hue", .color)
            mapping.write(service, "saturation", .color)
            mapping.acceptsHueSaturation = colors.contains { $0.name == "color_hs" }
        }
        for feature in [state, brightness, colorTemp] + colors { use(feature) }
        category = category ?? .lightbulb
    }

    /// Switch endpoints become switches, or outlets on a metering plug; the mapping file can choose.
    mutating func addSwitch(_ expose: Expose) {
        guard let state = expose.feature("state"), let key = state.property else { return }
        let power = generic("power")
        let type: ServiceType
        switch override.service {
        case .lightbulb: type = .lightbulb
        case .switch: type = .switch
        case .outlet: type = .outlet
        default: type = power != nil || (device.description ?? "").lowercased().contains("plug") ? .outlet : .switch
        }
        var characteristics = [Characteristic(.on)]
        if type == .outlet { characteristics.append(Characteristic(.outlet_in_use, value: .bool(false))) }
        let service = addService(type, endpoint: expose.endpoint ?? state.endpoint, characteristics)
        let (on, off) = (state.valueOn ?? "ON", state.valueOff ?? "OFF")
        mapping.read(key, into: service, "on", .onOff(on: on, off: off))
        mapping.write(service, "on", .onOff(key: key, on: on, off: off))
        if type == .outlet, let power, let property = power.property {
            mapping.read(property, into: service, "outlet_in_use", .positive)
            use(power)
        }
        use(state)
        category = category ?? (type == .outlet ? .outlet : type == .lightbulb ? .lightbulb : .switch)
    }

    mutating func addCover(_ cover: Expose) {
        guard let position = cover.feature("position"), let key = position.property else { return }
        let state = cover.feature("state")
        var characteristics = [Characteristic(.current_position), Characteristic(.target_position), Characteristic(.position_state, value: .int(2))]
        if state?.values.contains("STOP") == true { characteristics.append(Characteristic(.hold_position)) }
        let service = addService(.window_covering, endpoint: cover.endpoint, primary: true, characteristics)
        mapping.read(key, into: service, "current_position", .number)
        mapping.read(key, into: service, "target_position", .number)
        mapping.write(service, "target_position", .number(key: key))
        if let state, let stateKey = state.property, state.values.contains("STOP") {
            mapping.write(service, "hold_position", .stop(key: stateKey))
            use(state)
        }
        if let motor = generic("motor_state"), let property = motor.property {
            mapping.read(property, into: service, "position_state", .enumeration(["closing": 0, "opening": 1, "stopped": 2]))
            use(motor)
        }
        use(position)
        category = category ?? .window_covering
    }

    mutating func addLock(_ lock: Expose) {
        guard let state = lock.feature("state"), let key = state.property else { return }
        let service = addService(.lock_mechanism, endpoint: lock.endpoint, primary: true,
                                 [Characteristic(.lock_current_state, value: .int(3)), Characteristic(.lock_target_state)])
        let (on, off) = (state.valueOn ?? "LOCK", state.valueOff ?? "UNLOCK")
        mapping.read(key, into: service, "lock_target_state", .binary(on: on, off: off, whenOn: .int(1), whenOff: .int(0)))
        mapping.write(service, "lock_target_state", .enumeration(key: key, [1: on.stringValue ?? "LOCK", 0: off.stringValue ?? "UNLOCK"]))
        if let current = lock.feature("lock_state"), let property = current.property {
            mapping.read(property, into: service, "lock_current_state",
                         .enumeration(["unlocked": 0, "locked": 1, "not_fully_locked": 2, "jammed": 2, "unknown": 3]))
            use(current)
        }
        use(state)
        category = category ?? .door_lock
    }

    mutating func addClimate(_ climate: Expose) {
        guard let local = climate.feature("local_temperature"), let localKey = local.property else { return }
        let setpoint = climate.feature("occupied_heating_setpoint") ?? climate.feature("current_heating_setpoint")
        let modes: [String: Int] = ["off": 0, "heat": 1, "cool": 2, "auto": 3]
        let systemMode = climate.feature("system_mode")
        let offered = systemMode.map { $0.values.compactMap { modes[$0] }.sorted() } ?? [1]
        let running = climate.feature("running_state")
        let characteristics = [
            Characteristic(.current_heating_cooling_state, value: .int(0), validValues: [0, 1, 2]),
            Characteristic(.target_heating_cooling_state, value: offered.count == 1 ? .int(offered[0]) : nil, validValues: offered),
            Characteristic(.current_temperature),
            Characteristic(.target_temperature, minValue: setpoint?.valueMin, maxValue: setpoint?.valueMax, minStep: setpoint?.valueStep ?? 0.5),
            Characteristic(.temperature_display_units, value: .int(0)),
        ]
        let service = addService(.thermostat, endpoint: climate.endpoint, primary: true, characteristics)
        mapping.read(localKey, into: service, "current_temperature", .number)
        if let setpoint, let key = setpoint.property {
            mapping.read(key, into: service, "target_temperature", .number)
            if setpoint.isSettable { mapping.write(service, "target_temperature", .number(key: key)) }
        }
        if let systemMode, let key = systemMode.property {
            mapping.read(key, into: service, "target_heating_cooling_state", .enumeration(modes))
            if systemMode.isSettable {
                mapping.write(service, "target_heating_cooling_state", .enumeration(key: key, Dictionary(uniqueKeysWithValues: modes.map { ($1, $0) })))
            }
        }
        if let running, let key = running.property {
            mapping.read(key, into: service, "current_heating_cooling_state", .enumeration(["idle": 0, "heat": 1, "cool": 2]))
        }
        for feature in [local, setpoint, systemMode, running] { use(feature) }
        category = category ?? .thermostat
    }
}
