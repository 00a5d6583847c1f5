import HomeModel
import JSON
import Yams

/// Checks that catch, at load time, transforms that could only ever fail (or silently do nothing)
/// at the first message.
extension FileReader {
    typealias Fields = [String: (key: Node, value: Node)]

    mutating func checkTransforms(_ t: Transforms, _ f: Fields, _ characteristic: Characteristic, what: String) {
        let type = characteristic.type
        let numeric = type.format != .bool && type.format != .string && type.format != .tlv8 && type.format != .data
        if !numeric {
            for key in ["scale", "round", "clamp", "unit"] {
                if let entry = f[key] {
                    error(entry.key, "\(what) \(key) needs a numeric characteristic; \(type.name) is \(type.format.rawValue)")
                }
            }
        }
        if t.invert, let entry = f["invert"] {
            if type.format == .string || type.format == .tlv8 || type.format == .data {
                error(entry.key, "\(what) invert works on bools and numbers; \(type.name) is \(type.format.rawValue)")
            } else if numeric, characteristic.range == nil {
                error(
                    entry.key,
                    "\(what) invert needs a minimum and a maximum to mirror within; \(type.name) has none (give it 'min' and 'max')")
            }
        }
        if t.unit != nil, numeric, type.unit != .celsius, let entry = f["unit"] {
            error(entry.key, "\(what) unit converts temperatures; \(type.name) is not in Celsius")
        }
    }

    /// State map targets and the default are HomeKit values: check them against the characteristic.
    mutating func checkStateMap(_ t: Transforms, _ f: Fields, _ characteristic: Characteristic, what: String) {
        guard t.map != nil, t.scale == nil, t.unit == nil, !t.invert else { return }
        for (key, value) in (t.map ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let problem = problem(value, characteristic) {
                error(f["map"]?.value, "\(what) map: '\(key)' maps to \(value.serialized()), but \(problem)")
            }
        }
        if let value = t.mapDefault, let problem = problem(value, characteristic) {
            error(f["default"]?.value, "\(what) default \(value.serialized()): \(problem)")
        }
    }

    /// Set map keys are HomeKit values: a key the characteristic can never take is a typo.
    mutating func checkSetMap(_ t: Transforms, _ f: Fields, _ characteristic: Characteristic, what: String) {
        guard let map = t.map, t.scale == nil, t.unit == nil, !t.invert, let entries = f["map"]?.value.mapping else { return }
        for (keyNode, _) in entries {
            guard let key = keyNode.string, map[key] != nil else { continue }
            if let problem = problem(MQTTBinding.scalar(Array(key.utf8)), characteristic) {
                error(keyNode, "\(what) map: '\(key)' is not a value \(characteristic.name) can take: \(problem)")
            }
        }
    }

    private func problem(_ value: JSONValue, _ characteristic: Characteristic) -> Transforms.Failure? {
        let checked = MQTTBinding.coerce(value, to: characteristic.type.format).flatMap {
            characteristic.check($0).mapError { Transforms.Failure(description: $0.description) }
        }
        if case .failure(let failure) = checked { return failure }
        return nil
    }
}
