public import HomeModel
public import JSON

extension Zigbee2MQTTMapping {
    /// A write that this device cannot take.
    public struct WriteError: Error, Sendable, Hashable, CustomStringConvertible {
        public var service: String
        public var characteristic: String
        public var description: String { "\(service)/\(characteristic): cannot be written through Zigbee2MQTT" }
    }

    /// Characteristic writes as one `/set` payload: `{"state":"ON","brightness":254}`. Hue and
    /// saturation go out together as one colour, the missing half taken from `current`.
    public func encode(_ writes: [CharacteristicUpdate], current: Accessory? = nil) throws(WriteError) -> JSONValue {
        var payload: [String: JSONValue] = [:]
        var hue: Double?, saturation: Double?
        for write in writes {
            guard let writer = writers[Target(service: write.service, characteristic: write.characteristic)] else {
                throw WriteError(service: write.service, characteristic: write.characteristic)
            }
            switch writer {
            case .onOff(let key, let on, let off):
                payload[key] = write.value.boolValue == true ? on : off
            case .number(let key):
                payload[key] = write.value.json
            case .percentOf254(let key):
                payload[key] = .integer(Int(((write.value.doubleValue ?? 0) * 254 / 100).rounded()))
            case .enumeration(let key, let names):
                if let name = write.value.intValue.flatMap({ names[$0] }) { payload[key] = .string(name) }
            case .stop(let key):
                if write.value.boolValue == true { payload[key] = "STOP" }
            case .color:
                if write.characteristic == "hue" { hue = write.value.doubleValue } else { saturation = write.value.doubleValue }
                if let current, let service = current[write.service] {
                    hue = hue ?? service["hue"]?.value?.doubleValue
                    saturation = saturation ?? service["saturation"]?.value?.doubleValue
                }
            }
        }
        if hue != nil || saturation != nil {
            let (h, s) = (hue ?? 0, saturation ?? 100)
            if acceptsHueSaturation {
                payload["color"] = ["hue": Self.number(h), "saturation": Self.number(s)]
            } else {
                let xy = ColorConversion.xy(hue: h, saturation: s)
                payload["color"] = ["x": .double((xy.x * 10_000).rounded() / 10_000), "y": .double((xy.y * 10_000).rounded() / 10_000)]
            }
        }
        return .object(payload)
    }

    static func number(_ value: Double) -> JSONValue {
        Int(exactly: value).map(JSONValue.integer) ?? .double(value)
    }
}
