public import JSON

extension Accessory {
    /// `homegate/state/<accessory>`: `{"reachable":true,"services":{"lightbulb":{"brightness":80,"on":true}}}`,
    /// keys sorted, values not known yet left out. Written straight to bytes, not built as a
    /// `JSONValue` and serialized: that was much of the work of rendering a reading (callgrind;
    /// docs/performance.md). Ids are unique in an accessory and names in a
    /// service; should one repeat, it is written once, with its first spelling and last value, as
    /// a JSON object built from them in order would have it.
    public var statePayload: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + 40 * services.count)
        out.append(contentsOf: #"{"reachable":"#.utf8)
        out.append(contentsOf: (reachable ? "true" : "false").utf8)
        out.append(contentsOf: #","services":{"#.utf8)
        for (position, s) in Self.sortedKeys(services.count, { services[$0].id }).enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(services[s.spelling].id, to: &out)
            out.append(contentsOf: #":{"#.utf8)
            let characteristics = services[s.value].characteristics
            let known = characteristics.indices.filter { characteristics[$0].value != nil }
            for (position, c) in Self.sortedKeys(known.count, { characteristics[known[$0]].name }).enumerated() {
                guard let value = characteristics[known[c.value]].value else { continue }
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(characteristics[known[c.spelling]].name, to: &out)
                out.append(UInt8(ascii: ":"))
                value.json.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        if !reachable, let unreachableReason {
            out.append(contentsOf: #","unreachable_reason":"#.utf8)
            JSONValue.writeString(unreachableReason, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// For each distinct key of the positions `0..<count`, in the order of the keys: the position
    /// whose spelling a dictionary built from them in order keeps (the first) and the one whose
    /// value it keeps (the last). Keys already in order, as a mapping usually lists them, cost a
    /// comparison each and no sort.
    static func sortedKeys(_ count: Int, _ key: (Int) -> String) -> [(spelling: Int, value: Int)] {
        if count < 2 || (1..<count).allSatisfy({ key($0 - 1) < key($0) }) { return (0..<count).map { ($0, $0) } }
        let keys = (0..<count).map(key)
        var groups: [(spelling: Int, value: Int)] = []
        for position in keys.indices.sorted(by: { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }) {
            if let last = groups.last, keys[last.spelling] == keys[position] {
                groups[groups.count - 1].value = position
            } else {
                groups.append((position, position))
            }
        }
        return groups
    }

    /// The whole accessory with metadata, for `homegate/accessories`.
    public var treeJSON: JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "category": .string(category.rawValue), "reachable": .bool(reachable),
            "services": .array(services.map(\.treeJSON)),
        ]
        if !reachable, let unreachableReason { fields["unreachable_reason"] = .string(unreachableReason) }
        if let manufacturer { fields["manufacturer"] = .string(manufacturer) }
        if let model { fields["model"] = .string(model) }
        if let firmware { fields["firmware"] = .string(firmware) }
        if let bridge { fields["bridge"] = .string(bridge) }
        if let home { fields["home"] = .string(home) }
        if let room { fields["room"] = .string(room) }
        return .object(fields)
    }
}

extension Service {
    public var treeJSON: JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "type": .string(type.name), "uuid": .string(type.uuid),
            "characteristics": .array(characteristics.map(\.treeJSON)),
        ]
        if let name { fields["name"] = .string(name) }
        if isPrimary { fields["primary"] = true }
        if isHidden { fields["hidden"] = true }
        return .object(fields)
    }
}

extension Characteristic {
    public var treeJSON: JSONValue {
        var permissions: [JSONValue] = []
        if type.permissions.contains(.read) { permissions.append("read") }
        if isWritable { permissions.append("write") }
        if type.permissions.contains(.notify) { permissions.append("notify") }
        var fields: [String: JSONValue] = [
            "type": .string(type.name), "uuid": .string(type.uuid), "format": .string(type.format.rawValue),
            "permissions": .array(permissions), "value": value?.json ?? .null,
        ]
        if let unit = type.unit { fields["unit"] = .string(unit.rawValue) }
        if let minValue { fields["min"] = Self.number(minValue) }
        if let maxValue { fields["max"] = Self.number(maxValue) }
        if let minStep { fields["step"] = Self.number(minStep) }
        if let validValues { fields["valid_values"] = .array(validValues.map { .integer($0) }) }
        if let choices { fields["valid_values"] = .array(choices.map { .string($0) }) }
        return .object(fields)
    }

    static func number(_ value: Double) -> JSONValue {
        value == value.rounded() && abs(value) < 1e15 ? .integer(Int(value)) : .double(value)
    }
}
