public import HomeModel
import JSON

/// One value for one characteristic, decoded from a device payload.
public struct CharacteristicUpdate: Sendable, Hashable {
    public var service: String
    public var characteristic: String
    public var value: CharacteristicValue

    public init(service: String, characteristic: String, value: CharacteristicValue) {
        self.service = service
        self.characteristic = characteristic
        self.value = value
    }
}

/// A Zigbee2MQTT device as an accessory, with the rules that turn its state payloads into
/// characteristic values and characteristic writes into one `/set` payload.
public struct Zigbee2MQTTMapping: Sendable {
    public var accessory: Accessory
    public var ieeeAddress: String
    public var friendlyName: String
    /// State keys that `/get` can refresh.
    public var gettableKeys: [String]
    /// Expose properties that found no place in the model, for the log.
    public var unmappedProperties: [String]

    var readers: [String: [Reader]] = [:]
    var writers: [Target: Writer] = [:]

    struct Target: Hashable, Sendable {
        var service: String
        var characteristic: String
    }

    /// How a state key becomes a characteristic value.
    struct Reader: Sendable {
        enum Rule: Sendable {
            case onOff(on: JSONValue, off: JSONValue)
            case binary(on: JSONValue, off: JSONValue, whenOn: CharacteristicValue, whenOff: CharacteristicValue)
            case number
            /// A number rounded to a whole one: mired, percent positions, battery levels.
            case whole
            case atLeast(Double)
            case percentOf254
            case lowBelow(Double)
            case enumeration([String: Int])
            case hue, saturation
            /// The first value when the number is above zero, else the second.
            case positive(CharacteristicValue, CharacteristicValue)
            case action([String: Int])
        }
        var target: Target
        var rule: Rule
    }

    /// How a characteristic write becomes part of the `/set` payload.
    enum Writer: Sendable {
        case onOff(key: String, on: JSONValue, off: JSONValue)
        case number(key: String)
        case percentOf254(key: String)
        /// Hue and saturation go out together: as `{hue, saturation}` where the light takes that, else as `{x, y}`.
        case color(key: String, hueSaturation: Bool)
        case enumeration(key: String, [Int: String])
        case stop(key: String)
        /// A cover that only opens and closes: 0 is CLOSE, anything else OPEN.
        case openClose(key: String)
    }

    public init(accessory: Accessory, ieeeAddress: String, friendlyName: String) {
        self.accessory = accessory
        self.ieeeAddress = ieeeAddress
        self.friendlyName = friendlyName
        self.gettableKeys = []
        self.unmappedProperties = []
    }

    mutating func read(_ key: String, into service: String, _ characteristic: String, _ rule: Reader.Rule) {
        readers[key, default: []].append(Reader(target: Target(service: service, characteristic: characteristic), rule: rule))
    }

    mutating func write(_ service: String, _ characteristic: String, _ writer: Writer) {
        writers[Target(service: service, characteristic: characteristic)] = writer
    }

    /// Whether the characteristic can be written through this device.
    public func isWritable(service: String, characteristic: String) -> Bool {
        writers[Target(service: service, characteristic: characteristic)] != nil
    }
}
