import HomeModel
import JSON

extension Builder {
    mutating func addLight(_ light: Expose) {
        guard let state = light.feature("state"), let key = state.property else { return }
        var characteristics = [Characteristic(.on)]
        let brightness = light.feature("brightness")
        let colorTemp = light.feature("color_temp")
        let colors = light.features.filter { ($0.name == "color_xy" || $0.name == "color_hs") && $0.property != nil }
        if brightness != nil { characteristics.append(Characteristic(.brightness)) }
        // The bulb's own range, inside what HAP allows (140–500 mired); a reading beyond it is shown at its end.
        let (low, high) = (CharacteristicType.color_temperature.minValue ?? 140, CharacteristicType.color_temperature.maxValue ?? 500)
        if let colorTemp {
            let range = (min: colorTemp.valueMin.map { min(max($0, low), high) }, max: colorTemp.valueMax.map { max(min($0, high), low) })
            characteristics.append(Characteristic(.color_temperature, minValue: range.min, maxValue: range.max))
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
            mapping.read(property, into: service, "color_temperature", .wholeWithin(low, high))
            mapping.write(service, "color_temperature", .number(key: property))
        }
        if let property = colors.first?.property {  // `color`, or `color_l1` on a multi-endpoint light
            mapping.read(property, into: service, "hue", .hue)
            mapping.read(property, into: service, "saturation", .saturation)
            // Hue/saturation where the light takes it natively: Z2M's echo then decodes exactly.
            let native = colors.contains { $0.name == "color_hs" }
            mapping.write(service, "hue", .color(key: property, hueSaturation: native))
            mapping.write(service, "saturation", .color(key: property, hueSaturation: native))
        }
        for feature in [state, brightness, colorTemp] + colors { use(feature) }
        claim(.lightbulb)
    }

    /// Switch endpoints become switches, or outlets on a metering plug; the mapping file can choose.
    mutating func addSwitch(_ expose: Expose) {
        guard let state = expose.feature("state"), let key = state.property else { return }
        // The gang's own meter (`power_l1`), else the device's.
        let meters = generics("power", type: "numeric")
        let power = meters.first { $0.endpoint != nil && $0.endpoint == expose.endpoint } ?? meters.first { $0.endpoint == nil }
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
            mapping.read(property, into: service, "outlet_in_use", .positive(.bool(true), .bool(false)))
            use(power)
        }
        use(state)
        category = category ?? (type == .outlet ? .outlet : type == .lightbulb ? .lightbulb : .switch)
    }

    /// Position 0–100 maps straight through (Zigbee2MQTT already applies `invert_cover`). A cover
    /// without `position` is only open or closed: 100 or 0. Tilt (0–100 %) is the horizontal tilt
    /// angle (-90° to 90°); a blind that only tilts shows its tilt as its position too.
    mutating func addCover(_ cover: Expose) {
        let tilt = cover.feature("tilt").flatMap { $0.property == nil ? nil : $0 }
        let position = cover.feature("position").flatMap { $0.property == nil ? nil : $0 } ?? tilt
        let state = cover.feature("state")
        guard position?.property != nil || state?.property != nil else { return }
        let stops = state?.values.contains("STOP") == true
        let step: Double? = position?.property == nil ? 100 : nil
        var characteristics = [
            Characteristic(.current_position, minStep: step), Characteristic(.target_position, minStep: step),
            Characteristic(.position_state, value: .int(2)),
        ]
        if stops { characteristics.append(Characteristic(.hold_position)) }
        if tilt != nil {
            characteristics += [Characteristic(.current_horizontal_tilt_angle), Characteristic(.target_horizontal_tilt_angle)]
        }
        let service = addService(.window_covering, endpoint: cover.endpoint, primary: true, characteristics)
        if let tilt, let key = tilt.property {
            mapping.read(key, into: service, "current_horizontal_tilt_angle", .tiltAngle)
            mapping.read(key, into: service, "target_horizontal_tilt_angle", .tiltAngle)
            mapping.write(service, "target_horizontal_tilt_angle", .tiltPercent(key: key))
            use(tilt)
        }
        let invert = override.invertPosition
        if let position, let key = position.property {
            mapping.read(key, into: service, "current_position", invert ? .mirroredPercent : .whole)
            mapping.read(key, into: service, "target_position", invert ? .mirroredPercent : .whole)
            mapping.write(service, "target_position", invert ? .mirroredPercent(key: key) : .number(key: key))
        } else if let state, let key = state.property {
            let openClosed = Rule.enumeration(["OPEN": 100, "CLOSE": 0, "CLOSED": 0])  // words need no mirror
            mapping.read(key, into: service, "current_position", openClosed)
            mapping.read(key, into: service, "target_position", openClosed)
            mapping.write(service, "target_position", .openClose(key: key))
        }
        if let state, let stateKey = state.property, stops {
            mapping.write(service, "hold_position", .stop(key: stateKey))
        }
        use(state)
        if let motor = generic("motor_state"), let property = motor.property {
            mapping.read(property, into: service, "position_state", .enumeration(["closing": 0, "opening": 1, "stopped": 2]))
            use(motor)
        }
        use(position)
        claim(.window_covering)
    }

    mutating func addLock(_ lock: Expose) {
        guard let state = lock.feature("state"), let key = state.property else { return }
        let service = addService(
            .lock_mechanism, endpoint: lock.endpoint, primary: true,
            [Characteristic(.lock_current_state, value: .int(3)), Characteristic(.lock_target_state)])
        let (on, off) = (state.valueOn ?? "LOCK", state.valueOff ?? "UNLOCK")
        mapping.read(key, into: service, "lock_target_state", .binary(on: on, off: off, whenOn: .int(1), whenOff: .int(0)))
        mapping.write(service, "lock_target_state", .enumeration(key: key, [1: on.stringValue ?? "LOCK", 0: off.stringValue ?? "UNLOCK"]))
        if let current = lock.feature("lock_state"), let property = current.property {
            mapping.read(
                property, into: service, "lock_current_state",
                .enumeration(["unlocked": 0, "locked": 1, "not_fully_locked": 2, "jammed": 2, "unknown": 3]))
            use(current)
        } else {
            // Without lock_state the confirmed state is all there is.
            mapping.read(key, into: service, "lock_current_state", .binary(on: on, off: off, whenOn: .int(1), whenOff: .int(0)))
        }
        use(state)
        claim(.door_lock)
    }

    /// Fan speeds as HomeKit's rotation speed: `low` a third, `medium` two thirds, `high` full.
    static let fanSpeeds: [(mode: String, percent: Int)] = [("low", 33), ("medium", 66), ("high", 100)]

    /// A `fan` expose (`fan_state` ON/OFF, `fan_mode` off/low/medium/high/on/auto/smart) as `fanv2`:
    /// active from the state (or from the mode not being off), rotation speed from the speeds the
    /// mode offers, and target fan state manual or auto where the mode has `auto`.
    mutating func addFan(_ fan: Expose) {
        let state = fan.feature("state").flatMap { $0.property == nil ? nil : $0 }
        let mode = fan.feature("mode").flatMap { $0.property == nil || $0.values.isEmpty ? nil : $0 }
        guard state != nil || mode != nil else { return }
        let speeds = Self.fanSpeeds.filter { mode?.values.contains($0.mode) == true }
        let auto = mode?.values.contains("auto") == true
        var characteristics = [Characteristic(.active)]
        if !speeds.isEmpty { characteristics.append(Characteristic(.rotation_speed, minStep: Double(100 / speeds.count))) }
        if auto { characteristics.append(Characteristic(.target_fan_state)) }
        let service = addService(.fanv2, endpoint: fan.endpoint, primary: true, characteristics)
        if let state, let key = state.property {
            let (on, off) = (state.valueOn ?? "ON", state.valueOff ?? "OFF")
            mapping.read(key, into: service, "active", .binary(on: on, off: off, whenOn: .int(1), whenOff: .int(0)))
            mapping.write(service, "active", .enumeration(key: key, [1: on.stringValue ?? "ON", 0: off.stringValue ?? "OFF"]))
            use(state)
        } else if let mode, let key = mode.property {
            var active = Dictionary(uniqueKeysWithValues: mode.values.map { ($0, $0 == "off" ? 0 : 1) })
            active["off"] = 0
            mapping.read(key, into: service, "active", .enumeration(active))
            let running = mode.values.contains("on") ? "on" : speeds.last?.mode ?? mode.values.first { $0 != "off" } ?? "on"
            mapping.write(service, "active", .enumeration(key: key, [1: running, 0: "off"]))
        }
        if let mode, let key = mode.property {
            if !speeds.isEmpty {
                var percent = Dictionary(uniqueKeysWithValues: speeds.map { ($0.mode, $0.percent) })
                percent["off"] = 0
                if mode.values.contains("on") { percent["on"] = 100 }
                mapping.read(key, into: service, "rotation_speed", .enumeration(percent))
                mapping.write(
                    service, "rotation_speed",
                    .levels(
                        key: key,
                        [Zigbee2MQTTMapping.Level(upTo: 0, word: "off")]
                            + speeds.map { Zigbee2MQTTMapping.Level(upTo: Double($0.percent), word: $0.mode) }))
            }
            if auto {
                let manual = speeds.last?.mode ?? (mode.values.contains("on") ? "on" : "auto")
                mapping.read(
                    key, into: service, "target_fan_state",
                    .enumeration(Dictionary(uniqueKeysWithValues: mode.values.map { ($0, $0 == "auto" ? 1 : 0) })))
                mapping.write(service, "target_fan_state", .enumeration(key: key, [1: "auto", 0: manual]))
            }
            use(mode)
        }
        claim(.fan)
    }
}
