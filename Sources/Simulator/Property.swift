public import JSON

/// One property a simulated device publishes or accepts, flattened out of its exposes.
public struct Property: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case binary(on: JSONValue, off: JSONValue, toggle: JSONValue?)
        case numeric(min: Double?, max: Double?, step: Double?)
        case enumeration([String])
        case composite([String])  // color: {x, y} or {hue, saturation}
        case other
    }

    /// The key in state payloads, endpoint suffix included (`state_l2`).
    public var key: String
    public var name: String
    public var endpoint: String?
    public var kind: Kind
    public var access: Int
    /// The expose type it came from (`light`, `cover`, `lock`, `climate`, `switch`), or nil for a generic expose.
    public var parent: String?

    public var isPublished: Bool { access & 1 != 0 }
    public var isSettable: Bool { access & 2 != 0 }
    public var isGettable: Bool { access & 4 != 0 }

    /// Flattens `definition.exposes`: specific types contribute their features.
    public static func all(in exposes: [JSONValue]) -> [Property] {
        exposes.flatMap { flatten($0, parent: nil) }
    }

    private static func flatten(_ expose: JSONValue, parent: String?) -> [Property] {
        guard let type = expose["type"]?.stringValue else { return [] }
        if let features = expose["features"]?.arrayValue, expose["property"] == nil || type != "composite" {
            if ["light", "switch", "cover", "lock", "climate", "fan"].contains(type) {
                return features.flatMap { flatten($0, parent: type) }
            }
        }
        guard let property = expose["property"]?.stringValue else { return [] }
        let kind: Kind
        switch type {
        case "binary":
            kind = .binary(on: expose["value_on"] ?? .bool(true), off: expose["value_off"] ?? .bool(false), toggle: expose["value_toggle"])
        case "numeric":
            kind = .numeric(
                min: expose["value_min"]?.doubleValue, max: expose["value_max"]?.doubleValue, step: expose["value_step"]?.doubleValue)
        case "enum":
            kind = .enumeration(expose["values"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        case "composite":
            kind = .composite(expose["features"]?.arrayValue?.compactMap { $0["property"]?.stringValue } ?? [])
        default:
            kind = .other
        }
        return [
            Property(
                key: property, name: expose["name"]?.stringValue ?? property, endpoint: expose["endpoint"]?.stringValue,
                kind: kind, access: expose["access"]?.intValue ?? 1, parent: parent)
        ]
    }

    /// A plausible first value, so a fresh simulator shows a believable house.
    var initialValue: JSONValue? {
        switch kind {
        case .binary(let on, let off, _):
            switch name {
            case "contact": return on  // closed
            default: return off
            }
        case .numeric(let min, let max, _):
            let typical: [String: Double] = [
                "temperature": 21.5, "local_temperature": 20.5, "humidity": 45, "pressure": 1013, "illuminance": 320,
                "illuminance_lux": 320, "battery": 87, "voltage": 230, "power": 0, "current": 0, "energy": 1.25,
                "brightness": 127, "linkquality": 120, "position": 0, "occupied_heating_setpoint": 21, "pi_heating_demand": 0,
                "device_temperature": 30,
            ]
            var value = typical[name] ?? min ?? 0
            if let min, value < min { value = min }
            if let max, value > max { value = max }
            if name == "color_temp", let min, let max { value = ((min + max) / 2).rounded() }
            return value == value.rounded() && abs(value) < 1e15 ? .integer(Int(value)) : .double(value)
        case .enumeration(let values):
            switch name {
            case "action": return nil  // never cached
            case "lock_state": return values.contains("locked") ? "locked" : values.first.map(JSONValue.string)
            case "system_mode": return values.contains("heat") ? "heat" : values.first.map(JSONValue.string)
            case "running_state": return values.contains("idle") ? "idle" : values.first.map(JSONValue.string)
            case "state" where parent == "cover": return "CLOSE"
            default: return values.first.map(JSONValue.string)
            }
        case .composite(let features):
            if features.contains("x") { return .object(["x": .double(0.3227), "y": .double(0.329)]) }
            if features.contains("hue") { return .object(["hue": .integer(0), "saturation": .integer(0)]) }
            return nil
        case .other:
            return nil
        }
    }
}
