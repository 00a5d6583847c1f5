public import HomeModel
import JSON

/// An expose with no place in the accessory, and why.
public struct UnmappedExpose: Sendable, Hashable, CustomStringConvertible {
    public var property: String
    public var reason: String
    public var description: String { "\(property) (\(reason))" }
}

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
    /// Exposes that found no place in the model, each with why: for the log and `homegate validate --devices`.
    public var unmapped: [UnmappedExpose]
    public var unmappedProperties: [String] { unmapped.map(\.property) }

    var readers: [String: [Reader]] = [:]
    var writers: [Target: Writer] = [:]

    struct Target: Hashable, Sendable {
        var service: String
        var characteristic: String
    }

    /// How a state key becomes a characteristic value.
    struct Reader: Sendable, Equatable {
        enum Rule: Sendable, Equatable {
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
            /// HAP's 1–5 by ascending bounds (at most the first: 1, above the last: 5); several
            /// readings for one characteristic in one message give the highest.
            case level([Double])
            /// A number kept inside the characteristic's range.
            case within(Double, Double)
            /// A number rounded to a whole one and kept inside HAP's range: a bulb's 526 mired is 500.
            case wholeWithin(Double, Double)
            /// 1 above the threshold, else 0.
            case above(Double)
            /// A percentage as a tilt angle: 0 % is -90°, 100 % is 90°.
            case tiltAngle
            /// A whole percentage mirrored: 30 is 70.
            case mirroredPercent
            /// A number times a factor, kept inside the characteristic's range: kPa as hPa.
            case scaled(Double, within: ClosedRange<Double>)
            /// A word as it is: an enum setting's value.
            case text
        }
        var target: Target
        var rule: Rule
    }

    /// How a characteristic write becomes part of the `/set` payload.
    enum Writer: Sendable, Equatable {
        case onOff(key: String, on: JSONValue, off: JSONValue)
        case number(key: String)
        case percentOf254(key: String)
        /// Hue and saturation go out together: as `{hue, saturation}` where the light takes that, else as `{x, y}`.
        case color(key: String, hueSaturation: Bool)
        case enumeration(key: String, [Int: String])
        case stop(key: String)
        /// A cover that only opens and closes: 0 is CLOSE, anything else OPEN.
        case openClose(key: String)
        /// A tilt angle (-90° to 90°) as Zigbee2MQTT's tilt percentage.
        case tiltPercent(key: String)
        /// A percentage mirrored: 30 is sent as 70.
        case mirroredPercent(key: String)
        /// A number as the first word whose level is at least it (fan speeds: 0 off, up to 33 low, ...).
        case levels(key: String, [Level])
        /// A word as it is.
        case text(key: String)
    }

    /// A word for the numbers up to `upTo`.
    struct Level: Sendable, Equatable {
        var upTo: Double
        var word: String
    }

    public init(accessory: Accessory, ieeeAddress: String, friendlyName: String) {
        self.accessory = accessory
        self.ieeeAddress = ieeeAddress
        self.friendlyName = friendlyName
        self.gettableKeys = []
        self.unmapped = []
    }

    mutating func read(_ key: String, into service: String, _ characteristic: String, _ rule: Reader.Rule) {
        readers[key, default: []].append(Reader(target: Target(service: service, characteristic: characteristic), rule: rule))
    }

    mutating func write(_ service: String, _ characteristic: String, _ writer: Writer) {
        writers[Target(service: service, characteristic: characteristic)] = writer
    }

    /// Takes `other`'s rules (and its gettable keys and unmapped exposes) when they are the same as
    /// these, so that both mappings hold one copy: a house of 500 sensors of one model keeps one
    /// set of rules, not 500. True when they were the same.
    @discardableResult
    public mutating func shareRules(with other: Zigbee2MQTTMapping) -> Bool {
        guard readers == other.readers, writers == other.writers, gettableKeys == other.gettableKeys, unmapped == other.unmapped
        else { return false }
        readers = other.readers
        writers = other.writers
        gettableKeys = other.gettableKeys
        unmapped = other.unmapped
        return true
    }

    /// Whether the characteristic can be written through this device.
    public func isWritable(service: String, characteristic: String) -> Bool {
        writers[Target(service: service, characteristic: characteristic)] != nil
    }
}
