import HomeModel
import JSON
import Yams

extension FileReader {
    static let transformKeys = ["map", "default", "scale", "invert", "round", "clamp", "unit"]

    mutating func stateSpec(_ node: Node, _ characteristic: Characteristic) -> MQTTBinding.StateSpec? {
        let what = "\(characteristic.name) state"
        guard let f = fields(node, what, allowed: ["topic", "path"] + Self.transformKeys, required: ["topic"]),
            let topic = topic(f["topic"]?.value, "\(what) topic")
        else { return nil }
        let transforms = transforms(f, what: what)
        checkTransforms(transforms, f, characteristic, what: what)
        // Map targets are HomeKit values: check them now, not at the first message.
        checkStateMap(transforms, f, characteristic, what: what)
        return MQTTBinding.StateSpec(topic: topic, path: path(f["path"]?.value), transforms: transforms)
    }

    mutating func setSpec(_ node: Node, _ characteristic: Characteristic) -> MQTTBinding.SetSpec? {
        let what = "\(characteristic.name) set"
        guard let f = fields(node, what, allowed: ["topic", "template", "retain"] + Self.transformKeys, required: ["topic"]),
            let topic = topic(f["topic"]?.value, "\(what) topic")
        else { return nil }
        let template = string(f["template"]?.value, "\(what) template")
        if let template, !template.contains("{{value}}") {
            error(f["template"]?.value, "\(what) template must contain {{value}} where the value goes")
        }
        let transforms = transforms(f, what: what)
        checkTransforms(transforms, f, characteristic, what: what)
        checkSetMap(transforms, f, characteristic, what: what)
        return MQTTBinding.SetSpec(
            topic: topic, template: template, transforms: transforms,
            retain: bool(f["retain"]?.value, "\(what) retain") ?? false)
    }

    mutating func transforms(_ f: [String: (key: Node, value: Node)], what: String) -> Transforms {
        var t = Transforms()
        if let node = f["map"]?.value {
            if let entries = node.mapping, !entries.isEmpty {
                var map: [String: JSONValue] = [:]
                for (key, value) in entries {
                    guard let k = key.string, let v = value.scalar else {
                        error(value, "\(what) map: each entry maps one value to one value")
                        continue
                    }
                    map[k] = MQTTBinding.scalar(Array(v.string.utf8))
                }
                t.map = map
            } else {
                error(node, "\(what) map must map values to values, like { OPEN: 0, CLOSED: 1 }")
            }
        }
        if let node = f["default"]?.value {
            if f["map"] == nil { error(f["default"]?.key, "\(what) default only makes sense with a map") }
            t.mapDefault = node.scalar.map { MQTTBinding.scalar(Array($0.string.utf8)) }
        }
        if let node = f["scale"]?.value, let s = fields(node, "\(what) scale", allowed: ["from", "to"], required: ["from", "to"]) {
            let from = pair(s["from"]?.value, "\(what) scale 'from'")
            let to = pair(s["to"]?.value, "\(what) scale 'to'")
            if let from, let to { t.scale = (from, to) }
        }
        t.invert = bool(f["invert"]?.value, "\(what) invert") ?? false
        t.round = int(f["round"]?.value, "\(what) round", 0...6)
        t.clamp = range(f["clamp"]?.value, "\(what) clamp")
        if let node = f["unit"]?.value, let text = string(node, "\(what) unit") {
            if let unit = Transforms.Unit(rawValue: text) {
                t.unit = unit
            } else {
                error(node, "\(what) unit must be celsius or fahrenheit, not '\(text)'")
            }
        }
        return t
    }
}
