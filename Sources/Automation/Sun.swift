public import Foundation

/// Sunrise or sunset.
public enum SunEvent: String, Sendable, Hashable, CaseIterable { case sunrise, sunset }

/// Sunrise and sunset by NOAA's "General Solar Position Calculations" (the Solar Calculator spreadsheet): the
/// sun's upper limb on a sea-level horizon with standard refraction, zenith 90.833°. Within seconds of the
/// almanacs at ordinary latitudes; near the polar circles, where the sun grazes the horizon, within a minute or
/// two, and the first or last day of a polar day or night may come out a day early or late.
public enum Sun {
    /// The moment of `event` on the local calendar day year-month-day in `timeZone`, at the given place
    /// (latitude north positive, longitude east positive); nil when the sun does not rise or set that day
    /// (polar day or night).
    public static func time(
        of event: SunEvent, year: Int, month: Int, day: Int,
        latitude: Double, longitude: Double, timeZone: TimeZone
    ) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        // Calendar rolls April 31 over into May 1; that is not a day anyone asked for.
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        guard parts.year == year, parts.month == month, parts.day == day else { return nil }
        // From this day's start to the next day's: 23 to 25 hours across a DST change.
        let start = calendar.startOfDay(for: date)
        let end = calendar.startOfDay(for: start.addingTimeInterval(36 * 3600))
        return time(of: event, on: start..<end, latitude: latitude, longitude: longitude)
    }

    /// The first moment strictly after `date` that is `event` plus `offset` seconds (offset may be negative:
    /// "30 minutes before sunset" is -1800), looking at most 400 days ahead; nil if there is none (a pole).
    public static func next(
        _ event: SunEvent, offset: TimeInterval = 0, after date: Date,
        latitude: Double, longitude: Double, timeZone: TimeZone
    ) -> Date? {
        // Walk solar days, not calendar days: near the polar circles a calendar day can hold two sunsets or none,
        // while a solar day holds one event or none. The zone thus plays no part here.
        let first = solarDay(near: date.addingTimeInterval(-offset - 86_400), longitude: longitude)
        for day in first...(first + 401) {
            let transit = transit(ofSolarDay: day, longitude: longitude)
            if let moment = solve(event, from: transit, latitude: latitude, longitude: longitude)?
                .addingTimeInterval(offset), moment > date
            {
                return moment
            }
        }
        return nil
    }

    // MARK: - Solar days

    private static func time(of event: SunEvent, on day: Range<Date>, latitude: Double, longitude: Double) -> Date? {
        let middle = day.lowerBound.addingTimeInterval(day.upperBound.timeIntervalSince(day.lowerBound) / 2)
        let today = solarDay(near: middle, longitude: longitude)
        // Near the polar circles the event of the previous or next solar day can fall on this calendar day.
        return (today - 1...today + 1).compactMap {
            solve(event, from: transit(ofSolarDay: $0, longitude: longitude), latitude: latitude, longitude: longitude)
        }.filter(day.contains).min()
    }

    /// Solar days are numbered by their mean noon at this longitude; numbering them, rather than starting from
    /// any nearby moment, makes `time` and `next` arrive at the very same instant.
    private static func solarDay(near date: Date, longitude: Double) -> Int {
        Int((date.timeIntervalSince1970 / 86_400 + longitude / 360 - 0.5).rounded())
    }

    private static func transit(ofSolarDay day: Int, longitude: Double) -> Date {
        let meanNoon = Date(timeIntervalSince1970: (Double(day) + 0.5 - longitude / 360) * 86_400)
        return solve(nil, from: meanNoon, latitude: 0, longitude: longitude) ?? meanNoon
    }

    /// Walks from `start` (a transit, for an event) to the moment the sun's hour angle is the event's, or 0 for the
    /// transit, recomputing the sun's position at each step so that the declination and equation of time are those
    /// of the event itself, not of noon; nil when the sun, at that moment, does not reach the horizon.
    private static func solve(_ event: SunEvent?, from start: Date, latitude: Double, longitude: Double) -> Date? {
        var moment = start
        var crosses = true
        for _ in 0..<5 {
            let sun = position(at: moment)
            var target = 0.0
            if let event {
                let h = riseHourAngle(latitude: latitude, declination: sun.declination)
                crosses = h != nil
                // A sun that misses the horizon here is followed to the culmination, where the question is settled.
                let angle = h ?? (sun.declination * latitude > 0 ? 180 : 0)
                target = event == .sunrise ? -angle : angle
            }
            let utcMinutes = moment.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) / 60
            let raw = (utcMinutes + sun.equationOfTime + 4 * longitude) / 4 - 180
            // Count whole turns from `start`, so that a sunset half a day on is not taken for the one before.
            let turns = ((raw - moment.timeIntervalSince(start) / 240) / 360).rounded()
            moment.addTimeInterval((target - raw + 360 * turns) * 240)  // the hour angle grows 1° every 4 minutes
        }
        return crosses ? moment : nil
    }

    /// The hour angle of sunrise in degrees, nil when the sun stays above or below the horizon all day.
    private static func riseHourAngle(latitude: Double, declination: Double) -> Double? {
        let phi = latitude * .pi / 180
        let delta = declination * .pi / 180
        let cosH = cos(90.833 * .pi / 180) / (cos(phi) * cos(delta)) - tan(phi) * tan(delta)
        guard cosH >= -1, cosH <= 1 else { return nil }
        return acos(cosH) * 180 / .pi
    }

    /// The sun's declination (degrees) and the equation of time (minutes) at `date`, as NOAA's spreadsheet has them.
    private static func position(at date: Date) -> (declination: Double, equationOfTime: Double) {
        let rad = Double.pi / 180
        let t = (date.timeIntervalSince1970 / 86_400 + 2_440_587.5 - 2_451_545) / 36_525  // Julian centuries
        let l0 = (280.46646 + t * (36_000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let m = 357.52911 + t * (35_999.05029 - 0.0001537 * t)
        let e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let centre =
            sin(m * rad) * (1.914602 - t * (0.004817 + 0.000014 * t))
            + sin(2 * m * rad) * (0.019993 - 0.000101 * t) + sin(3 * m * rad) * 0.000289
        let omega = (125.04 - 1934.136 * t) * rad
        let apparent = l0 + centre - 0.00569 - 0.00478 * sin(omega)
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = (meanObliquity + 0.00256 * cos(omega)) * rad
        let declination = asin(sin(obliquity) * sin(apparent * rad)) / rad
        let y = pow(tan(obliquity / 2), 2)
        let eot =
            y * sin(2 * l0 * rad) - 2 * e * sin(m * rad) + 4 * e * y * sin(m * rad) * cos(2 * l0 * rad)
            - 0.5 * y * y * sin(4 * l0 * rad) - 1.25 * e * e * sin(2 * m * rad)
        return (declination, 4 * eot / rad)
    }
}
