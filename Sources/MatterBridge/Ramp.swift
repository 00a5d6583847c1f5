import GatewayCore
import JSON

/// A Move of LevelControl or ColorControl: a value of the house's (brightness %, hue °, saturation
/// %, mireds, or a colour's x and y) changing at a rate until a Stop, another command of the
/// cluster, or the end of its range. The house's writes take effect at once, so the bridge ramps:
/// `RampRunner` writes a step every `RampRunner.interval` at most, and only when the value written changes.
struct Ramp: Sendable, Equatable {
    enum Quantity: Sendable, Equatable {
        case brightness, hue, saturation, colorTemperature
        /// x and y (0–1), written as hue and saturation.
        case xy
    }

    var quantity: Quantity
    var from: [Double]
    /// Units of `quantity` per second, one per component of `from`.
    var perSecond: [Double]
    /// Where it ends (hue wraps instead, and ends after one full turn).
    var range: ClosedRange<Double>
    /// Written once as it starts (MoveWithOnOff up: the light switched on).
    var first: [WriteRequest] = []
    /// MoveWithOnOff down: the light switched off once at the bottom.
    var offAtBottom = false

    /// The values after `seconds`, and whether the ramp has ended there.
    func values(after seconds: Double) -> (values: [Double], ended: Bool) {
        if quantity == .hue {
            let turned = abs(perSecond[0] * seconds) >= 360
            let hue = from[0] + perSecond[0] * min(seconds, 360 / max(abs(perSecond[0]), .ulpOfOne))
            return ([(hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)], turned)
        }
        var ended = true
        let values = zip(from, perSecond).map { start, rate in
            let value = start + rate * seconds
            let clamped = min(max(value, range.lowerBound), range.upperBound)
            if clamped == value && rate != 0 { ended = false }
            return clamped
        }
        return (values, ended)
    }
}

extension BridgedEndpoint {
    /// What a ramp writes at `values`: the house's whole units, as its other writes.
    func writes(_ ramp: Ramp, at values: [Double], ended: Bool) -> [WriteRequest] {
        switch ramp.quantity {
        case .brightness:
            if ended && ramp.offAtBottom && values[0] <= ramp.range.lowerBound { return [write("on", .bool(false))] }
            return [write("brightness", .integer(Int(values[0].rounded())))]
        case .hue: return [write("hue", .integer(Int(values[0].rounded()) % 360))]
        case .saturation: return [write("saturation", .integer(Int(values[0].rounded())))]
        case .colorTemperature: return colorTemperatureWrites(mireds: Int(values[0].rounded()))
        case .xy:
            let (hue, saturation) = ColorState.hueSaturation(x: values[0], y: values[1])
            return [write("hue", .integer(hue)), write("saturation", .integer(saturation))]
        }
    }
}
