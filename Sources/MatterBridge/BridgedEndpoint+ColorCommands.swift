import GatewayCore
import HomeModel
import JSON
import Matter

extension BridgedEndpoint {
    /// ColorControl's hue, saturation, XY and colour temperature commands (MoveToColorTemperature
    /// and StopMoveStep are in `translate`). A Step is a jump; a Move a `Ramp`.
    func color(_ command: UInt32, _ fields: TLVValue) -> Invoke {
        let temperatureCommand = command == 0x4B || command == 0x4C
        guard temperatureCommand ? device.colorTemperature != nil : device.hasColor else { return .refused(.unsupportedCommand) }
        func field(_ tag: UInt8, _ limit: Int64 = 0xFF) -> Int64? {
            fields[context: tag]?.integer.flatMap { (0...limit).contains($0) ? $0 : nil }
        }
        func signed(_ tag: UInt8) -> Int64? { fields[context: tag]?.integer.flatMap { (-0x8000...0x7FFF).contains($0) ? $0 : nil } }
        let hue = value("hue") ?? 0
        let saturation = value("saturation") ?? 0
        switch command {
        case 0x00:  // MoveToHue {0: Hue, 1: Direction, 2: TransitionTime, …}
            guard let target = field(0, 254) else { return .refused(.constraintError) }
            return .writes([write("hue", .integer(Self.wholeDegrees(ColorScale.degrees(hue: Int(target)))))])
        case 0x03:  // MoveToSaturation {0: Saturation, 1: TransitionTime, …}
            guard let target = field(0, 254) else { return .refused(.constraintError) }
            return .writes([write("saturation", .integer(Int(PercentScale.percent(matter: Int(target)).rounded())))])
        case 0x06:  // MoveToHueAndSaturation {0: Hue, 1: Saturation, 2: TransitionTime, …}: one /set
            guard let h = field(0, 254), let s = field(1, 254) else { return .refused(.constraintError) }
            return .writes([
                write("hue", .integer(Self.wholeDegrees(ColorScale.degrees(hue: Int(h))))),
                write("saturation", .integer(Int(PercentScale.percent(matter: Int(s)).rounded()))),
            ])
        case 0x07:  // MoveToColor {0: ColorX, 1: ColorY, 2: TransitionTime, …}: as hue and saturation
            guard let x = field(0, 0xFEFF), let y = field(1, 0xFEFF) else { return .refused(.constraintError) }
            let hs = ColorState.hueSaturation(x: ColorScale.coordinate(Int(x)), y: ColorScale.coordinate(Int(y)))
            return .writes([write("hue", .integer(hs.hue)), write("saturation", .integer(hs.saturation))])
        case 0x02, 0x05:  // StepHue, StepSaturation {0: StepMode (1 up, 3 down), 1: StepSize, 2: TransitionTime, 3, 4: options}
            guard let mode = field(0), mode == 1 || mode == 3, let size = field(1) else { return .refused(.constraintError) }
            guard executes(fields, maskTag: 3) else { return .writes([]) }
            let sign: Double = mode == 1 ? 1 : -1
            if command == 0x02 {
                return .writes([write("hue", .integer(Self.wholeDegrees(hue + sign * ColorScale.degrees(hue: Int(size)))))])
            }
            let percent = min(100, max(0, saturation + sign * PercentScale.percent(matter: Int(size))))
            return .writes([write("saturation", .integer(Int(percent.rounded())))])
        case 0x01, 0x04:  // MoveHue, MoveSaturation {0: MoveMode (0 stop, 1 up, 3 down), 1: Rate per second, 2, 3: options}
            guard let mode = field(0), [0, 1, 3].contains(mode), let rate = field(1) else { return .refused(.constraintError) }
            guard mode != 0, rate > 0, executes(fields, maskTag: 2) else { return .writes([]) }
            let sign: Double = mode == 1 ? 1 : -1
            let ramp =
                command == 0x01
                ? Ramp(quantity: .hue, from: [hue], perSecond: [sign * ColorScale.degrees(hue: Int(rate))], range: 0...360)
                : Ramp(
                    quantity: .saturation, from: [saturation], perSecond: [sign * PercentScale.percent(matter: Int(rate))], range: 0...100
                )
            return checkedRamp(ramp, writing: [command == 0x01 ? "hue" : "saturation"])
        case 0x09:  // StepColor {0: StepX, 1: StepY, 2: TransitionTime, 3, 4: options}
            guard let dx = signed(0), let dy = signed(1) else { return .refused(.constraintError) }
            guard executes(fields, maskTag: 3) else { return .writes([]) }
            let (x, y) = currentXY
            let hs = ColorState.hueSaturation(
                x: ColorScale.coordinate(ColorScale.matter(x) + Int(dx)), y: ColorScale.coordinate(ColorScale.matter(y) + Int(dy)))
            return .writes([write("hue", .integer(hs.hue)), write("saturation", .integer(hs.saturation))])
        case 0x08:  // MoveColor {0: RateX, 1: RateY (per second), 2, 3: options}
            guard let rx = signed(0), let ry = signed(1) else { return .refused(.constraintError) }
            guard rx != 0 || ry != 0, executes(fields, maskTag: 2) else { return .writes([]) }
            let (x, y) = currentXY
            let ramp = Ramp(
                quantity: .xy, from: [x, y], perSecond: [Double(rx) / 65536, Double(ry) / 65536], range: 0...ColorScale.coordinate(0xFEFF))
            return checkedRamp(ramp, writing: ["hue", "saturation"])
        case 0x4B, 0x4C:  // MoveColorTemperature, StepColorTemperature
            return colorTemperature(command, fields)
        default:
            return .refused(.unsupportedCommand)
        }
    }

    /// MoveColorTemperature {0: MoveMode, 1: Rate, 2: Minimum, 3: Maximum, 4, 5: options} and
    /// StepColorTemperature {0: StepMode, 1: StepSize, 2: TransitionTime, 3: Minimum, 4: Maximum, 5, 6: options}
    /// in mireds, within the bulb's range and the command's (0: the bulb's own end).
    private func colorTemperature(_ command: UInt32, _ fields: TLVValue) -> Invoke {
        guard let physical = device.colorTemperature else { return .refused(.unsupportedCommand) }
        // A colour bulb without its own colour temperature starts from the warm end.
        let mireds = value("color_temperature") ?? Double(physical.upperBound)
        let move = command == 0x4B
        func field(_ tag: UInt8) -> Int64? { fields[context: tag]?.integer.flatMap { (0...0xFFFF).contains($0) ? $0 : nil } }
        guard let mode = field(0), [1, 3].contains(mode) || (move && mode == 0), let amount = field(1),
            let minimum = field(move ? 2 : 3), let maximum = field(move ? 3 : 4)
        else { return .refused(.constraintError) }
        let low = max(physical.lowerBound, minimum == 0 ? physical.lowerBound : Int(minimum))
        let high = min(physical.upperBound, maximum == 0 ? physical.upperBound : Int(maximum))
        guard low <= high else { return .refused(.constraintError) }
        let sign: Double = mode == 1 ? 1 : -1  // up: more mireds (warmer)
        guard mode != 0, amount > 0, executes(fields, maskTag: move ? 4 : 5) else { return .writes([]) }
        if move {
            let ramp = Ramp(
                quantity: .colorTemperature, from: [mireds], perSecond: [sign * Double(amount)],
                range: Double(low)...Double(high))
            return checkedRamp(ramp, writing: colorTemperatureWritten)
        }
        let target = min(max(Int(mireds.rounded()) + Int(sign) * Int(amount), low), high)
        return .writes(colorTemperatureWrites(mireds: target))
    }

    /// The colour's x and y now, as CurrentX/CurrentY show it.
    var currentXY: (x: Double, y: Double) {
        ColorState(
            hue: value("hue"), saturation: value("saturation"),
            mireds: device.colorTemperature == nil ? nil : value("color_temperature")
        ).xy
    }

    /// Degrees as the house's whole hue, 0–359.
    static func wholeDegrees(_ degrees: Double) -> Int {
        (Int(degrees.rounded()) % 360 + 360) % 360
    }
}
