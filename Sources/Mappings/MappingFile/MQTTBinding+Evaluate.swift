import Foundation
public import HomeModel
import JSON

extension MQTTBinding.StateSpec {
    /// A state message as a characteristic value, or why not.
    public func value(from payload: [UInt8], for characteristic: Characteristic) -> Result<CharacteristicValue, Transforms.Failure> {
        var raw: JSONValue
        if let path {
            guard let document = try? JSONValue(parsing: payload) else {
                return .failure(.init(description: "the payload is not JSON, so path '\(path)' cannot be read"))
            }
            guard let found = path.value(in: document) else { return .failure(.init(description: "no value at path '\(path)'")) }
            raw = found
        } else {
            raw = MQTTBinding.scalar(payload)
        }
        switch transforms.incoming(raw, range: characteristic.range) {
        case .failure(let failure): return .failure(failure)
        case .success(let transformed): raw = transformed
        }
        return MQTTBinding.coerce(raw, to: characteristic.type.format)
    }
}

extension MQTTBinding.SetSpec {
    /// A characteristic value as the payload for the set topic.
    public func payload(for value: CharacteristicValue, characteristic: Characteristic) -> Result<[UInt8], Transforms.Failure> {
        switch transforms.outgoing(value.json, range: characteristic.range) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let transformed):
            let text = Transforms.text(transformed)
            guard let template else { return .success(Array(text.utf8)) }
            // Inside JSON quotes the text is escaped, so a value with a quote cannot break the payload.
            let escaped = String(JSONValue.string(text).serialized().dropFirst().dropLast())
            let filled = template.replacingAll("\"{{value}}\"", with: "\"\(escaped)\"").replacingAll("{{value}}", with: text)
            return .success(Array(filled.utf8))
        }
    }
}

extension MQTTBinding {
    /// A raw payload as a JSON scalar when it is one (`21.5`, `true`, `"x"`), else as text (`ON`).
    static func scalar(_ payload: [UInt8]) -> JSONValue {
        if let parsed = try? JSONValue(parsing: payload) {
            switch parsed {
            case .array, .object: break
            default: return parsed
            }
        }
        return .string(String(decoding: payload, as: UTF8.self).trimmingSpaces)
    }

    /// A transformed value in the characteristic's format; `"on"`/`"off"`, `1`/`0` count as bools.
    static func coerce(_ value: JSONValue, to format: CharacteristicType.Format) -> Result<CharacteristicValue, Transforms.Failure> {
        switch format {
        case .bool:
            switch value {
            case .bool(let b): return .success(.bool(b))
            case .integer(let i) where i == 0 || i == 1: return .success(.bool(i == 1))
            case .string(let s):
                switch s.lowercased() {
                case "true", "on", "1", "yes": return .success(.bool(true))
                case "false", "off", "0", "no": return .success(.bool(false))
                default: break
                }
            default: break
            }
            return .failure(.init(description: "\(value.serialized()) is not a bool (use map to say which values mean true)"))
        case .string, .tlv8, .data:
            return .success(.string(Transforms.text(value)))
        case .float:
            guard let d = value.doubleValue ?? value.stringValue.flatMap(Double.init) else {
                return .failure(.init(description: "\(value.serialized()) is not a number"))
            }
            return .success(.float(d))
        default:
            if let i = value.intValue ?? value.stringValue.flatMap(Int.init) { return .success(.int(i)) }
            if let d = value.doubleValue ?? value.stringValue.flatMap(Double.init), let i = Int(exactly: d.rounded()) {
                return .success(.int(i))
            }
            return .failure(.init(description: "\(value.serialized()) is not a number"))
        }
    }
}

extension Characteristic {
    /// The characteristic's range, for `invert`: its minimum and maximum, else its valid values'
    /// (so `active` 0/1 can be inverted too).
    public var range: ClosedRange<Double>? {
        if let minValue, let maxValue, minValue <= maxValue { return minValue...maxValue }
        guard let low = validValues?.min(), let high = validValues?.max(), low < high else { return nil }
        return Double(low)...Double(high)
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension MQTTAccessoryMapping.Availability {
    /// Whether an availability message says online; a payload that is neither value is a failure,
    /// so a stray message does not mark the device unreachable.
    public func isOnline(_ payload: [UInt8]) -> Result<Bool, Transforms.Failure> {
        var text = String(decoding: payload, as: UTF8.self).trimmingSpaces
        if let path {
            guard let document = try? JSONValue(parsing: payload), let found = path.value(in: document) else {
                return .failure(.init(description: "no value at path '\(path)' in the availability payload"))
            }
            text = found.stringValue ?? found.serialized()
        }
        if text == online { return .success(true) }
        if text == offline { return .success(false) }
        return .failure(.init(description: "'\(text)' is neither '\(online)' nor '\(offline)'"))
    }
}
