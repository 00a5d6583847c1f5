import HomeModel
import JSON

extension Builder {
    /// What HAP has no place for but a user sets now and then (a child lock, the LED, what the plug
    /// does after a power cut): one `settings` service with a characteristic of homegate's own per
    /// settable binary, numeric or enum expose left over, named as Zigbee2MQTT names its state key.
    /// Settings Zigbee2MQTT marks as configuration come only with `settings: all`; `settings: none`
    /// leaves the service out.
    mutating func addSettings() {
        guard override.settings != .none else { return }
        var characteristics: [Characteristic] = []
        var rules: [(key: String, name: String, Rule?, Zigbee2MQTTMapping.Writer)] = []
        for expose in exposes {
            // A thermostat's child lock comes as a `lock` expose with a `child_lock` state.
            let e =
                expose.type == "lock" ? expose.feature("state").flatMap { $0.property?.hasPrefix("child_lock") == true ? $0 : nil } : expose
            guard let e, e.features.isEmpty, let key = e.property, !used.contains(key), e.isSettable,
                e.category == nil || (override.settings == .all && e.category == "config")
            else { continue }
            let name = Accessory.topicSafeID(key, fallback: "setting")
            guard !characteristics.contains(where: { $0.name == name }), name != "name" else { continue }
            switch e.type {
            case "binary":
                let on = e.valueOn ?? true
                let off = e.valueOff ?? false
                characteristics.append(Characteristic(.custom(name, format: .bool, readable: e.isPublished, writable: true)))
                rules.append((key, name, e.isPublished ? .onOff(on: on, off: off) : nil, .onOff(key: key, on: on, off: off)))
            case "numeric":
                // Bounds as the definition gives them, if they make sense; a whole number stays within HAP's int.
                var (low, high) = (e.valueMin.flatMap { $0.isFinite ? $0 : nil }, e.valueMax.flatMap { $0.isFinite ? $0 : nil })
                if let l = low, let h = high, l > h { (low, high) = (nil, nil) }
                let whole = [low, high, e.valueStep ?? 1].allSatisfy { $0.map { $0 == $0.rounded() } ?? true }
                if whole {
                    low = min(max(low ?? -2_147_483_648, -2_147_483_648), 2_147_483_647)
                    high = max(min(high ?? 2_147_483_647, 2_147_483_647), low!)
                }
                // A step is kept only where the bounds are on its grid: a device that steps 10 from 10 up to 65534 reports 65534.
                var step = e.valueStep.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
                if let s = step, let l = low, let h = high, abs(((h - l) / s).rounded() * s - (h - l)) > 1e-9 { step = nil }
                let type = CharacteristicType.custom(
                    name, format: whole ? .int : .float, unit: Self.unit(e.unit), minValue: low, maxValue: high,
                    minStep: step, readable: e.isPublished, writable: true)
                characteristics.append(Characteristic(type))
                let rule: Rule =
                    whole ? .wholeWithin(low!, high!) : .within(low ?? -.greatestFiniteMagnitude, high ?? .greatestFiniteMagnitude)
                rules.append((key, name, e.isPublished ? rule : nil, .number(key: key)))
            case "enum" where !e.values.isEmpty:
                characteristics.append(
                    Characteristic(.custom(name, format: .string, readable: e.isPublished, writable: true), choices: e.values))
                rules.append((key, name, e.isPublished ? .text : nil, .text(key: key)))
            default:
                continue
            }
            use(e)
        }
        guard !characteristics.isEmpty else { return }
        let service = addService(.settings, characteristics)
        for (key, name, rule, writer) in rules {
            if let rule { mapping.read(key, into: service, name, rule) }
            mapping.write(service, name, writer)
        }
    }

    /// Zigbee2MQTT's unit as HAP's where it has one.
    static func unit(_ text: String?) -> CharacteristicType.Unit? {
        switch text {
        case nil, "": nil
        case "°C": .celsius
        case "%": .percentage
        case "s": .seconds
        case "lx": .lux
        case "°": .arcdegrees
        case let other?: CharacteristicType.Unit(rawValue: other)
        }
    }
}
