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
    /// saturation go out together as one colour, the missing half taken from `current`. A
    /// `transition` (seconds) goes with writes of a dimmable light, where Zigbee2MQTT applies it to
    /// on/off, brightness, colour temperature and colour; other devices have none (a relay shown
    /// as a lightbulb included: Zigbee2MQTT would log the key as one it cannot convert).
    public func encode(_ writes: [CharacteristicUpdate], current: Accessory? = nil, transition: Double? = nil) throws(WriteError)
        -> JSONValue
    {
        var payload: [String: JSONValue] = [:]
        // The services are `current`'s where it is given: a mapping kept beside its accessory has none of its own.
        let services = current ?? accessory
        if let transition, writes.contains(where: { services[$0.service].map(Self.dims) == true }) {
            payload["transition"] = Self.number(transition)
        }
        var colors: [String: Color] = [:]
        for write in writes {
            guard let writer = writers[Target(service: write.service, characteristic: write.characteristic)] else {
                throw WriteError(service: write.service, characteristic: write.characteristic)
            }
            switch writer {
            case .onOff(let key, let on, let off):
                payload[key] = write.value.boolValue == true ? on : off
            case .number(let key):
                payload[key] = write.value.doubleValue.map(Self.number) ?? write.value.json
            case .percentOf254(let key):
                payload[key] = .integer(Int(((write.value.doubleValue ?? 0) * 254 / 100).rounded()))
            case .enumeration(let key, let names):
                if let name = write.value.intValue.flatMap({ names[$0] }) { payload[key] = .string(name) }
            case .stop(let key):
                if write.value.boolValue == true { payload[key] = "STOP" }
            case .openClose(let key):
                payload[key] = (write.value.doubleValue ?? 0) > 0 ? "OPEN" : "CLOSE"
            case .levels(let key, let levels):
                let value = write.value.doubleValue ?? 0
                if let word = levels.first(where: { value <= $0.upTo })?.word ?? levels.last?.word { payload[key] = .string(word) }
            case .text(let key):
                if let text = write.value.stringValue { payload[key] = .string(text) }
            case .mirroredPercent(let key):
                payload[key] = .integer(100 - Int(min(100, max(0, write.value.doubleValue ?? 0)).rounded()))
            case .tiltPercent(let key):
                payload[key] = .integer(Int((((write.value.doubleValue ?? 0) + 90) / 1.8).rounded()))
            case .color(let key, let native):
                var color = colors[key] ?? Color(service: write.service, native: native)
                if write.characteristic == "hue" { color.hue = write.value.doubleValue } else { color.saturation = write.value.doubleValue }
                colors[key] = color
            }
        }
        for (key, color) in colors {
            let service = current?[color.service]
            let h = color.hue ?? service?["hue"]?.value?.doubleValue ?? 0
            let s = color.saturation ?? service?["saturation"]?.value?.doubleValue ?? 100
            if color.native {
                payload[key] = ["hue": Self.number(h), "saturation": Self.number(s)]
            } else {
                let xy = ColorConversion.xy(hue: h, saturation: s)
                payload[key] = ["x": .double((xy.x * 10_000).rounded() / 10_000), "y": .double((xy.y * 10_000).rounded() / 10_000)]
            }
        }
        return .object(payload)
    }

    /// One colour being assembled from hue and saturation writes.
    struct Color {
        var service: String
        var native: Bool
        var hue: Double?
        var saturation: Double?
    }

    /// A light that Zigbee2MQTT can run a transition on: a lightbulb with a brightness.
    static func dims(_ service: Service) -> Bool {
        service.type == .lightbulb && service["brightness"] != nil
    }

    static func number(_ value: Double) -> JSONValue {
        Int(exactly: value).map(JSONValue.integer) ?? .double(value)
    }
}
