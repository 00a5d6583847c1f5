public import Foundation

extension TimerSchedule {
    /// The first fire strictly after `date`, or nil when a one-off timer is past.
    public func next(after date: Date) -> Date? {
        switch recurrence {
        case nil:
            guard let first = fireDate?.moment(in: timeZone), first > date else { return nil }
            return first
        case .every(let count, let unit):
            guard let fireDate else { return nil }
            return unit == .minutes || unit == .hours
                ? nextInterval(from: fireDate.moment(in: timeZone), step: Double(count * unit.seconds), after: date)
                : nextDay(from: fireDate, stepDays: count * unit.seconds / 86_400, after: date)
        case .calendar(let hour, let minute, let weekdays):
            return nextCalendar(hour: hour, minute: minute, weekdays: weekdays, after: date)
        }
    }

    /// The last fire at or before `date` and strictly after `since`: what was missed while down.
    public func latest(atOrBefore date: Date, since: Date) -> Date? {
        guard var candidate = next(after: since), candidate <= date else { return nil }
        // Jump close first, so a long outage does not walk every occurrence.
        if let stride = approximateStride, date.timeIntervalSince(candidate) > 4 * stride,
            let near = next(after: date.addingTimeInterval(-2 * stride)), near <= date
        {
            candidate = near
        }
        while let following = next(after: candidate), following <= date { candidate = following }
        return candidate
    }

    var approximateStride: TimeInterval? {
        switch recurrence {
        case nil: nil
        case .every(let count, let unit): Double(count * unit.seconds)
        case .calendar: 86_400 * 7
        }
    }

    /// Elapsed-time steps: every 90 minutes is 90 minutes, whatever the clocks do.
    private func nextInterval(from first: Date, step: TimeInterval, after date: Date) -> Date {
        guard first <= date else { return first }
        let steps = ((date.timeIntervalSince(first)) / step).rounded(.down) + 1
        var candidate = first.addingTimeInterval(steps * step)
        while candidate <= date { candidate.addTimeInterval(step) }
        return candidate
    }

    /// Calendar-day steps: 22:30 stays 22:30 when the clocks change.
    private func nextDay(from first: LocalTime, stepDays: Int, after date: Date) -> Date {
        let today = LocalTime(date, in: timeZone).day
        var k = max(0, (today - first.day).floorDivided(by: stepDays) - 1)
        while true {
            let candidate = LocalTime(day: first.day + k * stepDays, seconds: first.seconds).moment(in: timeZone)
            if candidate > date { return candidate }
            k += 1
        }
    }

    private func nextCalendar(hour: Int, minute: Int, weekdays: Set<Int>, after date: Date) -> Date? {
        guard !weekdays.isEmpty else { return nil }
        var start = date
        if let first = fireDate?.moment(in: timeZone), first > date { start = first.addingTimeInterval(-1) }
        let today = LocalTime(start, in: timeZone).day
        for day in (today - 1)...(today + 8) {
            let local = LocalTime(day: day, seconds: hour * 3600 + minute * 60)
            guard weekdays.contains(local.weekday) else { continue }
            let candidate = local.moment(in: timeZone)
            if candidate > start, candidate > date { return candidate }
        }
        return nil
    }
}
