public import JSON

/// A device the simulator serves: its `bridge/devices` entry, its properties and its current state.
public struct SimulatedDevice: Sendable {
    public var entry: JSONValue
    public var properties: [String: Property]
    public var state: [String: JSONValue]
    public var available = true

    public var friendlyName: String {
        get { entry["friendly_name"]?.stringValue ?? "" }
        set { entry = entry.setting("friendly_name", to: .string(newValue)) }
    }
    public var ieeeAddress: String { entry["ieee_address"]?.stringValue ?? "" }
    public var model: String? { entry["definition"]?["model"]?.stringValue }
    /// Only interviewed, supported devices with a definition talk.
    public var isServed: Bool { entry["type"]?.stringValue != "Coordinator" && entry["definition"]?["exposes"] != nil }

    public init(entry: JSONValue) {
        self.entry = entry
        var properties: [String: Property] = [:]
        for property in Property.all(in: entry["definition"]?["exposes"]?.arrayValue ?? []) {
            if let existing = properties[property.key], case .composite(let a) = existing.kind, case .composite(let b) = property.kind {
                properties[property.key]?.kind = .composite(a + b)  // color_xy and color_hs share "color"
            } else {
                properties[property.key] = property
            }
        }
        self.properties = properties
        var state: [String: JSONValue] = [:]
        for property in properties.values where property.isPublished {
            if let value = property.initialValue { state[property.key] = value }
        }
        if properties["color_temp"] != nil, properties["color"] != nil { state["color_mode"] = "color_temp" }
        self.state = state
    }

    /// Applies a `/set` payload as Zigbee2MQTT would: validated per key, nothing changes if any key
    /// is invalid. Returns false when nothing was applied. `endpoint` comes from `<name>/<endpoint>/set`.
    public mutating func apply(set payload: [String: JSONValue], endpoint: String? = nil) -> Bool {
        var next = state
        var applied = false
        for (rawKey, value) in payload.sorted(by: { $0.key < $1.key }) {
            let key = endpoint.map { "\(rawKey)_\($0)" } ?? rawKey
            if rawKey == "brightness_percent", let percent = value.number {
                guard properties["brightness"]?.isSettable == true else { continue }
                guard (0...100).contains(percent) else { return false }
                next["brightness"] = .integer(Int((percent * 254 / 100).rounded()))
                next["state"] = percent > 0 ? "ON" : "OFF"
                applied = true
                continue
            }
            if rawKey == "transition" { continue }
            guard let property = properties[key], property.isSettable else { continue }  // Z2M logs and skips
            guard let accepted = accept(value, for: property) else { return false }
            next[key] = accepted
            applied = true
            consequences(of: property, value: accepted, in: &next)
        }
        guard applied else { return false }
        state = next
        return true
    }

    private func accept(_ value: JSONValue, for property: Property) -> JSONValue? {
        switch property.kind {
        case .binary(let on, let off, let toggle):
            let text = value.stringValue?.uppercased()
            if value == on || (text != nil && on.stringValue?.uppercased() == text) { return on }
            if value == off || (text != nil && off.stringValue?.uppercased() == text) { return off }
            if let toggle, value == toggle || text == "TOGGLE" { return state[property.key] == on ? off : on }
            return nil
        case .numeric(let min, let max, _):
            guard var number = value.number else { return nil }
            if property.name == "color_temp" {  // clamped to the device's range
                number = Swift.min(Swift.max(number, min ?? number), max ?? number)
            } else if let min, number < min {
                return nil
            } else if let max, number > max {
                return nil
            }
            return Int(exactly: number).map(JSONValue.integer) ?? .double(number)
        case .enumeration(let values):
            guard let text = value.stringValue, let match = values.first(where: { $0.lowercased() == text.lowercased() }) else {
                return nil
            }
            return .string(match)
        case .composite:
            guard case .object(let fields) = value else { return nil }
            return .object(fields.filter { $0.value.number != nil })
        case .other:
            return value
        }
    }

    /// What a real device reports along with the value that was set.
    private func consequences(of property: Property, value: JSONValue, in next: inout [String: JSONValue]) {
        let suffix = property.endpoint.map { "_\($0)" } ?? ""
        switch (property.parent, property.name) {
        case ("light", "brightness"):
            next["state\(suffix)"] = (value.number ?? 0) > 0 ? "ON" : "OFF"
        case ("light", "color_temp"):
            next["color_mode"] = "color_temp"
        case ("light", "color"), ("light", "color_xy"), ("light", "color_hs"):
            next["color_mode"] = value["x"] != nil ? "xy" : "hs"
        case ("cover", "state"):
            switch value.stringValue {
            case "OPEN": next["position"] = 100
            case "CLOSE": next["position"] = 0
            default: break
            }
            if value.stringValue == "STOP" { next["state"] = (next["position"]?.number ?? 0) > 0 ? "OPEN" : "CLOSE" }
        case ("cover", "position"):
            next["state"] = (value.number ?? 0) > 0 ? "OPEN" : "CLOSE"
        case ("lock", "state"):
            next["lock_state\(suffix)"] = value.stringValue == "LOCK" ? "locked" : "unlocked"
        default:
            break
        }
    }
}

extension JSONValue {
    /// A number, or a string that holds one (Zigbee2MQTT accepts `"200"` for brightness).
    var number: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        case .string(let s): Double(s)
        default: nil
        }
    }

    func setting(_ key: String, to value: JSONValue) -> JSONValue {
        guard case .object(var fields) = self else { return self }
        fields[key] = value
        return .object(fields)
    }
}
