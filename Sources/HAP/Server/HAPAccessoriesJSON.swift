/// The `GET /accessories` document.
enum HAPAccessoriesJSON {
    static func render(_ accessories: [HAPAccessory]) -> String {
        var json = HAPJSONWriter()
        json.raw("{\"accessories\":[")
        for (index, accessory) in accessories.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{\"aid\":\(accessory.aid),\"services\":[")
            for (serviceIndex, service) in accessory.services.enumerated() {
                if serviceIndex > 0 { json.raw(",") }
                json.raw("{\"iid\":\(service.iid),\"type\":")
                json.string(service.type.description)
                if service.primary { json.raw(",\"primary\":true") }
                if service.hidden { json.raw(",\"hidden\":true") }
                if !service.linked.isEmpty { json.raw(",\"linked\":[\(service.linked.map(String.init).joined(separator: ","))]") }
                json.raw(",\"characteristics\":[")
                for (characteristicIndex, characteristic) in service.characteristics.enumerated() {
                    if characteristicIndex > 0 { json.raw(",") }
                    json.raw("{\"iid\":\(characteristic.iid)")
                    characteristicFields(characteristic, into: &json, type: true, meta: true, perms: true)
                    if characteristic.allows(.pairedRead), let value = characteristic.value {
                        json.key("value")
                        json.value(value)
                    } else if characteristic.allows(.pairedRead) {
                        json.raw(",\"value\":null")
                    }
                    json.raw("}")
                }
                json.raw("]}")
            }
            json.raw("]}")
        }
        json.raw("]}")
        return json.text
    }

    /// The optional fields shared with `GET /characteristics?meta=1&perms=1&type=1`.
    static func characteristicFields(_ characteristic: HAPCharacteristic, into json: inout HAPJSONWriter, type: Bool, meta: Bool, perms: Bool) {
        if type {
            json.key("type")
            json.string(characteristic.type.description)
        }
        if perms {
            json.raw(",\"perms\":[" + characteristic.perms.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]")
        }
        guard meta else { return }
        json.key("format")
        json.string(characteristic.format.rawValue)
        if let unit = characteristic.unit {
            json.key("unit")
            json.string(unit.rawValue)
        }
        if let minValue = characteristic.minValue {
            json.key("minValue")
            json.number(minValue)
        }
        if let maxValue = characteristic.maxValue {
            json.key("maxValue")
            json.number(maxValue)
        }
        if let minStep = characteristic.minStep {
            json.key("minStep")
            json.number(minStep)
        }
        if let maxLength = characteristic.maxLength {
            json.raw(",\"maxLen\":\(maxLength)")
        }
        if let validValues = characteristic.validValues {
            json.raw(",\"valid-values\":[" + validValues.map(String.init).joined(separator: ",") + "]")
        }
        if let description = characteristic.description {
            json.key("description")
            json.string(description)
        }
    }
}
