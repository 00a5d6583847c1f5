public import Foundation

/// Where the house is, for sunrise and sunset, and the time zone its clock times are in.
public struct Location: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var timeZone: TimeZone

    public init(latitude: Double, longitude: Double, timeZone: TimeZone) {
        self.latitude = latitude
        self.longitude = longitude
        self.timeZone = timeZone
    }

    /// The first `event` + `offset` strictly after `date`.
    public func next(_ event: SunEvent, offset: TimeInterval, after date: Date) -> Date? {
        Sun.next(event, offset: offset, after: date, latitude: latitude, longitude: longitude, timeZone: timeZone)
    }

    /// `event` + `offset` on the local day of `date`.
    public func time(of event: SunEvent, offset: TimeInterval, onDayOf date: Date) -> Date? {
        let (y, m, d) = LocalTime(date, in: timeZone).date
        return Sun.time(of: event, year: y, month: m, day: d, latitude: latitude, longitude: longitude, timeZone: timeZone)
            .map { $0.addingTimeInterval(offset) }
    }
}

/// Durations as people write them: `90s`, `10m`, `1h30m`, `-30m`, `2d`; a bare number is seconds.
public enum DurationText {
    public static func parse(_ text: String) -> TimeInterval? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign = 1.0
        if rest.hasPrefix("-") { sign = -1; rest = rest.dropFirst() } else if rest.hasPrefix("+") { rest = rest.dropFirst() }
        if let plain = Double(rest), plain.isFinite { return sign * plain }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for ch in rest {
            if ch.isNumber || ch == "." { number.append(ch); continue }
            let unit: Double
            switch ch {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            default: return nil
            }
            guard let value = Double(number) else { return nil }
            total += value * unit
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit else { return nil }
        return sign * total
    }

    /// `600` → `10m`, `5400` → `1h30m`, `-1800` → `-30m`, `0` → `0s`.
    public static func format(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return "\(seconds)" }
        var rest = Int(abs(seconds).rounded())
        guard rest > 0 else { return "0s" }
        var text = seconds < 0 ? "-" : ""
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }
}
