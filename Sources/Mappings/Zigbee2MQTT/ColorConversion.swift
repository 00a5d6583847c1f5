import Foundation

/// Hue/saturation (HomeKit) to CIE xy (Zigbee) and back, at full brightness: HSV to RGB with the
/// sRGB gamma, then Philips Hue's "Wide RGB D65" matrix, the conversion Zigbee2MQTT itself uses
/// (`color.ts`), so our xy is the xy Zigbee2MQTT would send for the same hue and saturation. No
/// lamp gamut is applied: the lamp clamps to its own, as it does for Zigbee2MQTT.
public enum ColorConversion {
    /// hue 0–360, saturation 0–100 → x, y.
    public static func xy(hue: Double, saturation: Double) -> (x: Double, y: Double) {
        let (r, g, b) = rgb(hue: hue, saturation: saturation / 100)
        let (lr, lg, lb) = (linear(r), linear(g), linear(b))
        let X = lr * 0.664511 + lg * 0.154324 + lb * 0.162028
        let Y = lr * 0.283881 + lg * 0.668433 + lb * 0.047685
        let Z = lr * 0.000088 + lg * 0.072310 + lb * 0.986039
        let sum = X + Y + Z
        guard sum > 0 else { return (0.3227, 0.3290) }  // the matrix's white
        return (X / sum, Y / sum)
    }

    /// A colour temperature in mired → the x, y of a black body at that temperature (Kim et al.'s
    /// cubic fit of the Planckian locus, good from 1,667 K to 25,000 K).
    public static func xy(mired: Double) -> (x: Double, y: Double) {
        let t = 1_000_000 / min(max(mired, 40), 600)
        let x =
            t <= 4000
            ? -0.2661239e9 / (t * t * t) - 0.2343589e6 / (t * t) + 0.8776956e3 / t + 0.179910
            : -3.0258469e9 / (t * t * t) + 2.1070379e6 / (t * t) + 0.2226347e3 / t + 0.240390
        let y =
            t <= 2222
            ? -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683
            : t <= 4000
                ? -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867
                : 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483
        return (x, y)
    }

    /// x, y → hue 0–360, saturation 0–100. Colours outside the RGB triangle come back fully saturated.
    public static func hueSaturation(x: Double, y: Double) -> (hue: Double, saturation: Double) {
        guard y > 0 else { return (0, 0) }
        let X = x / y
        let Y = 1.0
        let Z = (1 - x - y) / y
        // The exact inverse of the matrix above (Philips' published inverse is rounded).
        var r = X * 1.656494 - Y * 0.354852 - Z * 0.255038
        var g = -X * 0.707196 + Y * 1.655399 + Z * 0.036153
        var b = X * 0.051714 - Y * 0.121365 + Z * 1.011530
        (r, g, b) = (max(0, r), max(0, g), max(0, b))
        let peak = max(r, g, b)
        guard peak > 0 else { return (0, 0) }
        (r, g, b) = (gamma(r / peak), gamma(g / peak), gamma(b / peak))
        let high = max(r, g, b)
        let low = min(r, g, b)
        let delta = high - low
        let saturation = high > 0 ? delta / high : 0
        var hue = 0.0
        if delta > 0 {
            if high == r {
                hue = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6)
            } else if high == g {
                hue = 60 * ((b - r) / delta + 2)
            } else {
                hue = 60 * ((r - g) / delta + 4)
            }
        }
        if hue < 0 { hue += 360 }
        return (hue, saturation * 100)
    }

    private static func rgb(hue: Double, saturation s: Double) -> (Double, Double, Double) {
        let h = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
        let c = s
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let m = 1 - c
        let (r, g, b): (Double, Double, Double)
        switch h {
        case ..<1: (r, g, b) = (c, x, 0)
        case ..<2: (r, g, b) = (x, c, 0)
        case ..<3: (r, g, b) = (0, c, x)
        case ..<4: (r, g, b) = (0, x, c)
        case ..<5: (r, g, b) = (x, 0, c)
        default: (r, g, b) = (c, 0, x)
        }
        return (r + m, g + m, b + m)
    }

    private static func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
    private static func gamma(_ c: Double) -> Double { c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055 }
}
