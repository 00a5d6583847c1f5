import Foundation
import HomeModel
import Yams

extension FileReader {
    /// Each `instances:` entry as an accessory node: its template with `{{var}}` replaced by the
    /// instance's `vars`. `{{value}}` is left for set templates. Positions stay those of the template.
    mutating func expandedInstances(templates: Node?, instances: Node?) -> [(Node, String)] {
        var named: [String: Node] = [:]
        if let templates {
            if let entries = templates.mapping {
                for (key, value) in entries { if let name = key.string { named[name] = value } }
            } else {
                error(templates, "templates must map template names to accessory definitions")
            }
        }
        guard let instances else {
            if let templates, !named.isEmpty { error(templates, "templates are defined but no 'instances' use them") }
            return []
        }
        guard let items = instances.sequence else {
            error(instances, "instances must be a list of { template: name, vars: { ... } }")
            return []
        }
        var result: [(Node, String)] = []
        for item in items {
            guard let f = fields(item, "an instance", allowed: ["template", "vars"], required: ["template"]),
                let name = nonEmpty(f["template"]?.value, "template")
            else { continue }
            guard let template = named[name] else {
                error(f["template"]?.value, "no template named '\(name)'\(didYouMean(name, named.keys))")
                continue
            }
            var vars: [String: String] = [:]
            if let node = f["vars"]?.value {
                guard let entries = node.mapping else {
                    error(node, "vars must map names to values")
                    continue
                }
                for (key, value) in entries {
                    if let k = key.string, let v = value.scalar?.string {
                        vars[k] = v
                    } else {
                        error(value, "vars: each entry maps a name to one value")
                    }
                }
            }
            let line = item.mark?.line ?? 0
            var missing: Set<String> = []
            var used: Set<String> = []
            let expanded = substitute(template, vars, missing: &missing, used: &used)
            if !missing.isEmpty {
                error(
                    item,
                    "template '\(name)' uses \(missing.sorted().map { "{{\($0)}}" }.joined(separator: ", ")) but this instance's vars do not give \(missing.count == 1 ? "it" : "them")"
                )
                continue
            }
            for unused in Set(vars.keys).subtracting(used).sorted() {
                error(f["vars"]?.value, "var '\(unused)' is not used by template '\(name)'")
            }
            result.append((expanded, " (template '\(name)', instance at line \(line))"))
        }
        return result
    }

    private func substitute(_ node: Node, _ vars: [String: String], missing: inout Set<String>, used: inout Set<String>) -> Node {
        switch node {
        case .scalar(let scalar):
            let text = fill(scalar.string, vars, missing: &missing, used: &used)
            return .scalar(Node.Scalar(text, scalar.tag, scalar.style, scalar.mark))
        case .mapping(let mapping):
            let pairs = mapping.map {
                (substitute($0.key, vars, missing: &missing, used: &used), substitute($0.value, vars, missing: &missing, used: &used))
            }
            return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
        case .sequence(let sequence):
            return .sequence(
                Node.Sequence(
                    sequence.map { substitute($0, vars, missing: &missing, used: &used) }, sequence.tag, sequence.style, sequence.mark))
        case .alias:
            return node
        }
    }

    private func fill(_ text: String, _ vars: [String: String], missing: inout Set<String>, used: inout Set<String>) -> String {
        guard text.contains("{{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            result += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound]).trimmingSpaces
            if name == "value" {
                result += "{{value}}"
            } else if let value = vars[name] {
                result += value
                used.insert(name)
            } else {
                missing.insert(name)
            }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }
}
