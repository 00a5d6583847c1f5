public import JSON

extension Accessory {
    /// `homegate/state/<accessory>`: `{"reachable":true,"services":{"lightbulb":{"on":true,"brightness":80}}}`.
    /// Values not known yet are left out.
    public var stateJSON: JSONValue {
        var services: [String: JSONValue] = [:]
        for service in self.services {
            var values: [String: JSONValue] = [:]
            for characteristic in service.characteristics {
                if let value = characteristic.value { values[characteristic.name] = value.json }
            }
            services[service.id] = .object(values)
        }
        return ["reachable": .bool(reachable), "services": .object(services)]
    }

    /// The whole accessory with metadata, for `homegate/accessories`.
    public var treeJSON: JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "category": .string(category.rawValue), "reachable": .bool(reachable),
            "services": .array(services.map(\.treeJSON)),
        ]
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
