import HomeModel
import Mappings
import Matter

/// Extended Color Light (0x010D): OnOff, LevelControl and ColorControl with hue/saturation, XY and
/// colour temperature, which the device type requires. The house holds a colour as HomeKit does, hue
/// 0–360° and saturation 0–100 %; XY is derived from them (the conversion the Zigbee2MQTT mapping
/// uses), and an XY command is written as hue and saturation; so is a colour temperature on a bulb
/// without one (its white, within `defaultColorTemperature`).
extension BridgedDevice {
    /// The colour temperature range of a colour bulb without its own, in mireds (6500 K to 2000 K).
    static let defaultColorTemperature = 153...500

    /// A lightbulb's colour temperature range in mireds, nil without one.
    static func colorTemperatureRange(_ service: Service) -> ClosedRange<Int>? {
        guard let characteristic = service["color_temperature"], let low = characteristic.minValue, let high = characteristic.maxValue,
            low.isFinite, high.isFinite, low >= 0, high <= 0xFFFF
        else { return nil }
        let (lowest, highest) = (Int(low.rounded(.up)), Int(high.rounded(.down)))
        // 153.4…153.6 holds no whole mired.
        return lowest <= highest ? lowest...highest : nil
    }

    /// Identify (0x0003): IdentifyTime stays 0, since the house's identify is one blink and has no
    /// duration; IdentifyType: light output.
    /// Computed, not stored: LeakSanitizer takes a static of TLV values for a leak (the fuzzer stops on it).
    static var identifyAttributes: [UInt32: TLVValue] {
        [
            0x0000: .unsigned(0), 0x0001: .unsigned(1), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(4),
        ]
    }

    /// ColorCapabilities and FeatureMap bits.
    enum ColorFeature {
        static let hueSaturation: UInt64 = 0x01
        static let xy: UInt64 = 0x08
        static let colorTemperature: UInt64 = 0x10
    }

    static let onOffCluster: [UInt32: TLVValue] = [0x0000: .bool(false), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(6)]
    static let levelControlCluster: [UInt32: TLVValue] = [
        0x0000: .null, 0x0002: .unsigned(1), 0x0003: .unsigned(254), 0x000F: .unsigned(0), 0x0011: .null,
        0xFFFC: .unsigned(0x03),  // OnOff, Lighting
        0xFFFD: .unsigned(6),
    ]

    /// A light's clusters: Identify, OnOff, LevelControl when it dims, ColorControl with colour
    /// temperature when it has a range, and hue/saturation and XY for a colour light.
    static func lightClusters(
        _ service: Service, dimmable: Bool, colorTemperature range: ClosedRange<Int>?, hueSaturation: Bool
    ) -> [UInt32: [UInt32: TLVValue]] {
        var clusters: [UInt32: [UInt32: TLVValue]] = [Cluster.identify: identifyAttributes, Cluster.onOff: onOffCluster]
        if dimmable { clusters[Cluster.levelControl] = levelControlCluster }
        guard range != nil || hueSaturation else { return clusters }
        let features =
            (hueSaturation ? ColorFeature.hueSaturation | ColorFeature.xy : 0) | (range == nil ? 0 : ColorFeature.colorTemperature)
        var color: [UInt32: TLVValue] = [
            0x0002: .unsigned(0),  // RemainingTime
            0x000F: .unsigned(0),  // Options
            0x0010: .unsigned(0),  // NumberOfPrimaries
            0x400A: .unsigned(features),  // ColorCapabilities
            0xFFFC: .unsigned(features),
            0xFFFD: .unsigned(7),
            0xFFF9: acceptedColorCommands(hueSaturation: hueSaturation, colorTemperature: range != nil),
        ]
        if let range {
            color[0x0007] = .unsigned(UInt64(range.lowerBound))  // ColorTemperatureMireds
            color[0x0008] = .unsigned(2)  // ColorMode: colour temperature
            color[0x4001] = .unsigned(2)  // EnhancedColorMode
            color[0x400B] = .unsigned(UInt64(range.lowerBound))  // ColorTempPhysicalMinMireds
            color[0x400C] = .unsigned(UInt64(range.upperBound))  // ColorTempPhysicalMaxMireds
            color[0x400D] = .unsigned(UInt64(range.lowerBound))  // CoupleColorTempToLevelMinMireds
            color[0x4010] = .null  // StartUpColorTemperatureMireds
        }
        if hueSaturation {
            color[0x0000] = .unsigned(0)  // CurrentHue
            color[0x0001] = .unsigned(0)  // CurrentSaturation
            // The bulb's own colour temperature only: an emulated one is written as hue and saturation.
            let state = ColorState(service: service, colorTemperature: colorTemperatureRange(service))
            for (attribute, value) in state.attributes { color[attribute] = value }
        }
        clusters[Cluster.colorControl] = color
        return clusters
    }
}

/// Matter's colour scales and the house's: hue 0–254 and 0–360°, x and y in 1/65536 and 0–1
/// (saturation: `PercentScale`).
enum ColorScale {
    static func hue(degrees: Double) -> Int {
        let wrapped = (degrees.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        return min(254, Int((wrapped * 254 / 360).rounded()))
    }
    static func degrees(hue: Int) -> Double { Double(min(254, max(0, hue))) * 360 / 254 }
    /// CurrentX/CurrentY: at most 0xFEFF.
    static func matter(_ coordinate: Double) -> Int { min(0xFEFF, max(0, Int((coordinate * 65536).rounded()))) }
    static func coordinate(_ matter: Int) -> Double { Double(min(0xFEFF, max(0, matter))) / 65536 }
}

/// A colour light's ColorMode and CurrentX/CurrentY from what the house has now. The house keeps no
/// colour mode: the light is in colour-temperature mode when its hue and saturation are the white
/// of its colour temperature (what the mapping reports while Zigbee2MQTT says `color_temp` mode),
/// else in hue/saturation mode; so ColorMode follows the last kind of change.
struct ColorState: Equatable {
    var hue: Double?
    var saturation: Double?
    var mireds: Double?

    init(hue: Double?, saturation: Double?, mireds: Double?) {
        (self.hue, self.saturation, self.mireds) = (hue, saturation, mireds)
    }

    init(service: Service, colorTemperature range: ClosedRange<Int>?) {
        self.init(
            hue: service["hue"]?.value?.number, saturation: service["saturation"]?.value?.number,
            mireds: range == nil ? nil : service["color_temperature"]?.value?.number)
    }

    /// ColorModeEnum: 0 hue/saturation, 1 XY, 2 colour temperature.
    var mode: UInt64 {
        guard let mireds else { return 0 }
        guard let hue, let saturation else { return 2 }
        let white = Self.white(mireds: mireds)
        return Int(hue.rounded()) % 360 == white.hue && Int(saturation.rounded()) == white.saturation ? 2 : 0
    }

    /// The hue and saturation the mapping reports for a colour temperature (its `whiteAsColor`).
    static func white(mireds: Double) -> (hue: Int, saturation: Int) {
        let (x, y) = ColorConversion.xy(mired: mireds)
        return hueSaturation(x: x, y: y)
    }

    var xy: (x: Double, y: Double) {
        if mode == 2, let mireds { return ColorConversion.xy(mired: mireds) }
        return ColorConversion.xy(hue: hue ?? 0, saturation: saturation ?? 0)
    }

    /// CurrentX, CurrentY, ColorMode, EnhancedColorMode.
    var attributes: [UInt32: TLVValue] {
        let (x, y) = xy
        return [
            0x0003: .unsigned(UInt64(ColorScale.matter(x))), 0x0004: .unsigned(UInt64(ColorScale.matter(y))),
            0x0008: .unsigned(mode), 0x4001: .unsigned(mode),
        ]
    }
}

extension ColorState {
    /// A colour's x and y as the house's whole hue (0–359) and saturation (0–100).
    static func hueSaturation(x: Double, y: Double) -> (hue: Int, saturation: Int) {
        let hs = ColorConversion.hueSaturation(x: x, y: y)
        return (Int(hs.hue.rounded()) % 360, min(100, max(0, Int(hs.saturation.rounded()))))
    }
}

extension BridgedDevice {
    /// ColorControl's AcceptedCommandList by the features served: hue/saturation and XY (MoveToHue
    /// … StepColor), colour temperature (MoveToColorTemperature, Move-, StepColorTemperature), StopMoveStep.
    static func acceptedColorCommands(hueSaturation: Bool, colorTemperature: Bool) -> TLVValue {
        let commands: [UInt64] =
            (hueSaturation ? Array(0x00...0x09) : []) + (colorTemperature ? [0x0A] : []) + [0x47]
            + (colorTemperature ? [0x4B, 0x4C] : [])
        return .array(commands.map { TLVElement(.unsigned($0)) })
    }
}
