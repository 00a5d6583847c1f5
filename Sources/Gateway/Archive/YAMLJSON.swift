import Foundation
import JSON
import Yams

/// YAML nodes as JSON values and back, for the archive: one reader for requests and files.
enum YAMLJSON {
    /// The value, and where each part of it was (`triggers[0].timer` → line and column).
    static func value(_ node: Node, path: String = "", marks: inout [String: Mark]) -> JSONValue {
        if let mark = node.mark { marks[path] = mark }
        switch node {
        case .mapping(let mapping):
            var fields: [String: JSONValue] = [:]
            for (key, value) in mapping {
                let name = key.string ?? ""
                fields[name] = Self.value(value, path: path.isEmpty ? name : "\(path).\(name)", marks: &marks)
            }
            return .object(fields)
        case .sequence(let sequence):
            return .array(sequence.enumerated().map { Self.value($1, path: "\(path)[\($0)]", marks: &marks) })
        case .scalar(let scalar):
            guard scalar.style == .plain else { return .string(scalar.string) }
            return plain(scalar.string)
        case .alias:
            return .null
        }
    }

    /// A plain scalar's type, YAML 1.2 core schema: null, true/false, numbers, else text.
    static func plain(_ text: String) -> JSONValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let integer = Int(text) { return .integer(integer) }
        if text.contains(where: \.isNumber), let double = Double(text), double.isFinite { return .double(double) }
        return .string(text)
    }

    static let keyOrder = [
        "id", "name", "home", "primary", "default_room", "enabled", "characteristic", "op", "value", "range",
        "for", "sun", "offset", "rooms", "zones", "action_sets", "zigbee2mqtt_scene", "accessory", "scene", "endpoint",
        "actions", "timer", "events", "conditions", "execute_once",
    ]

    /// A node that reads back as the same value: strings that would read as something else are quoted.
    static func node(_ value: JSONValue) -> Node {
        switch value {
        case .null: return Node("null", Tag(.null), .plain)
        case .bool(let flag): return Node(flag ? "true" : "false", Tag(.bool), .plain)
        case .integer(let number): return Node(String(number), Tag(.int), .plain)
        case .double(let number):
            return Node(
                number == number.rounded() && abs(number) < 1e15 ? String(format: "%.1f", number) : String(number), Tag(.float), .plain)
        case .string(let text):
            let ambiguous =
                plain(text) != .string(text) || text.contains(":") || text.contains("#")
                || text != text.trimmingCharacters(in: .whitespaces)
                || text.first.map { "[]{},&*!|>'\"%@`-?=<~".contains($0) } == true || yaml11Special(text)
            return Node(text, Tag(.str), ambiguous ? .doubleQuoted : .plain)
        case .array(let items):
            let flat = items.allSatisfy(isScalar)
            return Node(items.map(node), Tag(.seq), flat ? .flow : .block)
        case .object(let fields):
            let keys = fields.keys.sorted { a, b in
                let ia = keyOrder.firstIndex(of: a) ?? keyOrder.count
                let ib = keyOrder.firstIndex(of: b) ?? keyOrder.count
                return ia == ib ? a < b : ia < ib
            }
            let flat = fields.values.allSatisfy { isScalar($0) || ($0.arrayValue?.allSatisfy(isScalar) ?? false) } && fields.count <= 5
            return Node(keys.map { (Node($0), node(fields[$0]!)) }, Tag(.map), flat ? .flow : .block)
        }
    }

    /// Plain words a YAML 1.1 reader (PyYAML's safe_load, yamllint) takes for something else: booleans,
    /// null, `=` (the value key), and numbers in its forms (`1_000`, `0x1f`, `0o17`, `1:30`, `.5`).
    static func yaml11Special(_ text: String) -> Bool {
        let words: Set<String> = ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "=", "<<"]
        if words.contains(text.lowercased()) { return true }
        guard let first = text.unicodeScalars.first, "0123456789+-.".unicodeScalars.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { "0123456789+-._:xobXOBabcdefABCDEFe".unicodeScalars.contains($0) }
    }

    static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: false
        default: true
        }
    }
}
