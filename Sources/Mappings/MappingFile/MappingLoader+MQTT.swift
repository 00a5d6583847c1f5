import HomeModel
import JSON
import Yams

extension FileReader {
    static let accessoryKeys = ["id", "name", "room", "manufacturer", "model", "category", "availability", "services"]

    /// `accessories:` plus every `instances:` entry expanded from `templates:`.
    mutating func mqttAccessories(
        _ top: [String: (key: Node, value: Node)], file: String, taken: [String: String]
    ) -> [MQTTAccessoryMapping] {
        var nodes: [(Node, String)] = []
        if let list = top["accessories"]?.value {
            if let items = list.sequence { nodes += items.map { ($0, "") } } else { error(list, "accessories must be a list") }
        }
        nodes += expandedInstances(templates: top["templates"]?.value, instances: top["instances"]?.value)
        var result: [MQTTAccessoryMapping] = []
        var ids = taken
        for (node, context) in nodes {
            self.context = context
            defer { self.context = "" }
            guard let accessory = accessory(node, file: file) else { continue }
            if let other = ids[accessory.accessory.id] {
                error(
                    node.mapping?["id"] ?? node,
                    "accessory id '\(accessory.accessory.id)' is already used\(other == file ? " in this file" : " in \(other)")")
                continue
            }
            ids[accessory.accessory.id] = file
            result.append(accessory)
        }
        return result
    }

    mutating func accessory(_ node: Node, file: String) -> MQTTAccessoryMapping? {
        guard let f = fields(node, "an accessory", allowed: Self.accessoryKeys, required: ["id", "services"]) else { return nil }
        guard let id = nonEmpty(f["id"]?.value, "id") else { return nil }
        if Accessory.topicSafeID(id) != id {
            error(f["id"]?.value, "id '\(id)' must use only a-z, 0-9, _ and - (try '\(Accessory.topicSafeID(id))')")
        }
        var accessory = Accessory(id: id, name: nonEmpty(f["name"]?.value, "name") ?? id, services: [])
        accessory.requestedRoom = nonEmpty(f["room"]?.value, "room")
        accessory.manufacturer = string(f["manufacturer"]?.value, "manufacturer")
        accessory.model = string(f["model"]?.value, "model")
        if let node = f["category"]?.value, let text = string(node, "category") {
            let names = Accessory.Category.allCases.map(\.rawValue)
            if let category = Accessory.Category(rawValue: text) {
                accessory.category = category
            } else {
                error(node, "category must be one of \(names.joined(separator: ", ")), not '\(text)'\(didYouMean(text, names))")
            }
        }
        var mapping = MQTTAccessoryMapping(file: file, accessory: accessory, availability: nil, bindings: [])
        if let node = f["availability"]?.value { mapping.availability = availability(node) }
        guard let servicesNode = f["services"]?.value else { return nil }
        guard let services = servicesNode.sequence, !services.isEmpty else {
            error(servicesNode, "services must be a non-empty list")
            return nil
        }
        for serviceNode in services {
            guard let (service, bindings) = service(serviceNode, in: mapping.accessory) else { continue }
            mapping.accessory.services.append(service)
            mapping.bindings += bindings
        }
        if let first = mapping.accessory.services.indices.first, !mapping.accessory.services.contains(where: \.isPrimary) {
            mapping.accessory.services[first].isPrimary = true
        }
        if f["category"] == nil, let primary = mapping.accessory.services.first(where: \.isPrimary) {
            mapping.accessory.category = Accessory.Category(primary: primary.type)
        }
        return mapping
    }

    mutating func availability(_ node: Node) -> MQTTAccessoryMapping.Availability? {
        guard let f = fields(node, "availability", allowed: ["topic", "path", "online", "offline"], required: ["topic"]),
            let topic = topic(f["topic"]?.value, "availability topic")
        else { return nil }
        return MQTTAccessoryMapping.Availability(
            topic: topic, path: path(f["path"]?.value),
            online: string(f["online"]?.value, "availability online") ?? "online",
            offline: string(f["offline"]?.value, "availability offline") ?? "offline")
    }

    /// A topic by MQTT's rules: what libmosquitto would cut short or refuse is an error here, at its line.
    mutating func topic(_ node: Node?, _ what: String, wildcards: Bool = false) -> String? {
        guard let text = nonEmpty(node, what) else { return nil }
        let shown = String(reflecting: text)
        if text.unicodeScalars.contains("\u{0}") {
            error(node, "\(what) \(shown) contains a NUL character, which would cut the topic short")
            return nil
        }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{FFFD}" }) {
            error(node, "\(what) \(shown) contains control characters or is not valid UTF-8")
            return nil
        }
        if text.utf8.count > 65_535 {
            error(node, "\(what) is \(text.utf8.count) bytes long; MQTT allows at most 65,535")
            return nil
        }
        if !wildcards, text.contains("+") || text.contains("#") {
            error(node, "\(what) '\(text)' must not contain wildcards")
            return nil
        }
        return text
    }

    mutating func path(_ node: Node?) -> JSONPath? {
        guard let node, let text = string(node, "path") else { return nil }
        guard let path = JSONPath(text) else {
            error(node, "path '\(text)' is not a path like 'state.brightness' or 'sensors[0].temp'")
            return nil
        }
        return path
    }
}
