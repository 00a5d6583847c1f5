public import Foundation

/// Wall-clock arithmetic in a time zone without Calendar: civil days and local times, with the
/// daylight-saving gap and overlap decided explicitly (a missing time fires when the gap ends,
/// a repeated one fires the first time).
public struct LocalTime: Sendable, Hashable, Comparable {
    /// Days since 1970-01-01 on the local calendar.
    public var day: Int
    /// Seconds since local midnight.
    public var seconds: Int

    public init(day: Int, seconds: Int) {
        self.day = day
        self.seconds = seconds
    }

    /// The local wall time of `date` in `zone`.
    public init(_ date: Date, in zone: TimeZone) {
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: date)
        day = local.floorDivided(by: 86_400)
        seconds = local - day * 86_400
    }

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.day = Self.days(year: year, month: month, day: day)
        seconds = hour * 3600 + minute * 60 + second
    }

    public static func < (a: LocalTime, b: LocalTime) -> Bool { (a.day, a.seconds) < (b.day, b.seconds) }

    /// ISO weekday: Monday 1 ... Sunday 7.
    public var weekday: Int { (day + 3).floorModulo(7) + 1 }

    public var date: (year: Int, month: Int, day: Int) { Self.civil(day) }

    /// The moment this wall time happens in `zone`: the first of two in an overlap, the end of the
    /// gap when it falls in one.
    public func moment(in zone: TimeZone) -> Date {
        let naive = Double(day * 86_400 + seconds)
        let offsets = Set([
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: naive - 86_400)),
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: naive + 86_400)),
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: naive)),
        ])
        let valid = offsets.map { Date(timeIntervalSince1970: naive - Double($0)) }
            .filter { zone.secondsFromGMT(for: $0) == Int(naive - $0.timeIntervalSince1970) }
        if let first = valid.min() { return first }
        // In the gap: the clocks jumped over this time; the first moment after the jump.
        let earliest = Date(timeIntervalSince1970: naive - Double(offsets.max() ?? 0))
        return zone.nextDaylightSavingTimeTransition(after: earliest) ?? Date(timeIntervalSince1970: naive - Double(offsets.min() ?? 0))
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's days_from_civil).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension Int {
    func floorDivided(by divisor: Int) -> Int {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }

    func floorModulo(_ divisor: Int) -> Int { self - floorDivided(by: divisor) * divisor }
}
