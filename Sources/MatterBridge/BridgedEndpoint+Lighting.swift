import GatewayCore
import HomeModel
import JSON
import Matter

extension BridgedDevice {
    /// A light's colour temperature range in mireds as served, nil without one: a colour light
    /// always has one (`defaultColorTemperature` when the bulb has none of its own).
    var colorTemperature: ClosedRange<Int>? {
        switch self {
        case .light(_, let range): range
        case .colorLight(let range): range ?? Self.defaultColorTemperature
        default: nil
        }
    }

    var hasColor: Bool {
        if case .colorLight = self { return true }
        return false
    }
}

/// A light's settings `effect` (Zigbee2MQTT's `effect` enum): what Identify's TriggerEffect plays.
struct EffectSetting: Sendable, Equatable {
    var service: String
    var choices: [String]

    init(service: String, choices: [String]) {
        (self.service, self.choices) = (service, choices)
    }

    /// The accessory's writable `effect` setting, if it has one.
    init?(_ accessory: Accessory) {
        for service in accessory.services {
            if let effect = service["effect"], effect.isWritable, let choices = effect.choices {
                self.init(service: service.id, choices: choices)
                return
            }
        }
        return nil
    }
}

extension BridgedEndpoint {
    /// The attributes a change sets: the device's own for the characteristic, and a colour light's
    /// ColorMode and XY, which follow hue, saturation and colour temperature together.
    func attributes(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, UInt32, TLVValue)] {
        var attributes = device.attributes(characteristic, value)
        if case .colorLight(let range) = device, ["hue", "saturation", "color_temperature"].contains(characteristic) {
            let state = ColorState(
                hue: self.value("hue"), saturation: self.value("saturation"), mireds: range == nil ? nil : self.value("color_temperature"))
            attributes += state.attributes.sorted { $0.key < $1.key }.map { (Cluster.colorControl, $0.key, $0.value) }
        }
        return attributes
    }

    /// IdentifyTime written: more than 0 asks the device to show itself, 0 is accepted (the house's identify is one blink).
    func identifyTime(_ value: TLVValue) -> Invoke {
        guard let seconds = value.integer, (0...0xFFFF).contains(seconds) else { return .refused(.constraintError) }
        return seconds > 0 ? .identify(accessory) : .writes([])
    }

    /// LevelControl's Move and Step, ColorControl's hue, saturation, XY and colour temperature
    /// commands but MoveToColorTemperature, and Identify's. A TransitionTime goes with the writes
    /// (`writes(for:fields:)`), for the light to run.
    func lighting(_ path: CommandPath, fields: TLVValue) -> Invoke {
        switch path.cluster {
        case Cluster.levelControl: level(path.command, fields)
        case Cluster.colorControl: color(path.command, fields)
        case Cluster.identify: identify(path.command, fields)
        default: .refused(.unsupportedCommand)
        }
    }

    /// Move and Step are ignored while the light is off unless their options say ExecuteIfOff
    /// (OptionsMask and OptionsOverride at `maskTag` and the next tag; the Options attribute is 0).
    func executes(_ fields: TLVValue, maskTag: UInt8) -> Bool {
        guard characteristics["on"]?.value?.boolValue == false else { return true }
        let mask = fields[context: maskTag]?.integer ?? 0
        let override = fields[context: maskTag + 1]?.integer ?? 0
        return mask & 1 != 0 && override & 1 != 0
    }

    /// A Move checked as writes are: the device reachable, each characteristic it writes writable.
    func checkedRamp(_ ramp: Ramp, writing names: [String]) -> Invoke {
        guard reachable else { return .refused(.failure) }
        for name in names where characteristics[name]?.isWritable != true { return .refused(.unsupportedCommand) }
        return .ramp(ramp)
    }

    /// The characteristics a colour temperature is written to: the bulb's own, else its white as hue and saturation.
    var colorTemperatureWritten: [String] { characteristics["color_temperature"] == nil ? ["hue", "saturation"] : ["color_temperature"] }

    /// A colour temperature in mireds as the house's writes: the bulb's own, or the hue and saturation of its white.
    func colorTemperatureWrites(mireds: Int) -> [WriteRequest] {
        guard characteristics["color_temperature"] == nil else { return [write("color_temperature", .integer(mireds))] }
        let white = ColorState.white(mireds: Double(mireds))
        return [write("hue", .integer(white.hue)), write("saturation", .integer(white.saturation))]
    }
}

extension BridgedEndpoint {
    /// Identify's EffectIdentifier and Zigbee2MQTT's `effect` of the same meaning.
    static let effects: [Int64: String] = [
        0x00: "blink", 0x01: "breathe", 0x02: "okay", 0x0B: "channel_change", 0xFE: "finish_effect", 0xFF: "stop_effect",
    ]

    /// Identify {0: IdentifyTime} (0x00) and TriggerEffect {0: EffectIdentifier, 1: EffectVariant}
    /// (0x40). Identify asks the device to show itself as `accessory/identify` does (Zigbee2MQTT's
    /// `identify`, else the `blink` effect); TriggerEffect plays the light's own effect of that name
    /// where its `effect` setting has it. A device with neither accepts them and shows nothing.
    func identify(_ command: UInt32, _ fields: TLVValue) -> Invoke {
        switch command {
        case 0x00:
            guard let time = fields[context: 0] else { return .refused(.constraintError) }
            return identifyTime(time)
        case 0x40:
            guard let identifier = fields[context: 0]?.integer, let name = Self.effects[identifier],
                fields[context: 1]?.integer != nil
            else { return .refused(.constraintError) }
            if let effect, effect.choices.contains(name) {
                return .writes([write("effect", .string(name), service: effect.service)])
            }
            return name.hasSuffix("_effect") ? .writes([]) : .identify(accessory)
        default:
            return .refused(.unsupportedCommand)
        }
    }
}
