public import Foundation
public import HomeModel

/// What must hold when a trigger fires for its action sets to run (HomeKit's predicate).
public indirect enum Condition: Sendable, Hashable {
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    case compare(CharacteristicPath, Comparison, CharacteristicValue)
    /// Between two times of day; either end may be missing; `after` later than `before` spans midnight.
    case time(after: TimeOfDay?, before: TimeOfDay?)
    /// On these ISO weekdays (Monday 1 ... Sunday 7), in the house's time zone.
    case weekdays(Set<Int>)
    case all([Condition])
    case any([Condition])
    case not(Condition)

    func collectPaths(into paths: inout Set<CharacteristicPath>) {
        switch self {
        case .compare(let path, _, _): paths.insert(path)
        case .time, .weekdays: break
        case .all(let items), .any(let items): for item in items { item.collectPaths(into: &paths) }
        case .not(let inner): inner.collectPaths(into: &paths)
        }
    }

    /// Whether it holds now. A characteristic with no value yet holds no comparison.
    public func holds(now: Date, clock: ClockContext, value: (CharacteristicPath) -> CharacteristicValue?) -> Bool {
        switch self {
        case .compare(let path, let comparison, let expected):
            guard let actual = value(path) else { return false }
            return comparison.holds(actual, expected)
        case .time(let after, let before):
            return clock.isWithin(after: after, before: before, at: now)
        case .weekdays(let days):
            return days.contains(LocalTime(now, in: clock.timeZone).weekday)
        case .all(let items): return items.allSatisfy { $0.holds(now: now, clock: clock, value: value) }
        case .any(let items): return items.contains { $0.holds(now: now, clock: clock, value: value) }
        case .not(let inner): return !inner.holds(now: now, clock: clock, value: value)
        }
    }
}

extension Condition.Comparison {
    func holds(_ actual: CharacteristicValue, _ expected: CharacteristicValue) -> Bool {
        if let a = actual.doubleValue, let b = expected.doubleValue {
            switch self {
            case .equal: return a == b
            case .notEqual: return a != b
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            }
        }
        switch self {
        case .equal: return actual == expected
        case .notEqual: return actual != expected
        default: return false
        }
    }
}

/// A time of day: a clock time, or sunrise or sunset with an offset.
public enum TimeOfDay: Sendable, Hashable, CustomStringConvertible {
    case clock(hour: Int, minute: Int)
    case sun(SunEvent, offset: TimeInterval)

    /// `22:30`, `sunset`, `sunrise+30m`, `sunset-1h`.
    public init?(_ text: String) {
        for event in SunEvent.allCases where text.hasPrefix(event.rawValue) {
            let rest = text.dropFirst(event.rawValue.count)
            if rest.isEmpty { self = .sun(event, offset: 0); return }
            guard rest.first == "+" || rest.first == "-", let offset = DurationText.parse(String(rest)), abs(offset) < 86_400 else {
                return nil
            }
            self = .sun(event, offset: offset)
            return
        }
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count <= 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0...23).contains(h), (0...59).contains(m)
        else { return nil }
        self = .clock(hour: h, minute: m)
    }

    public var description: String {
        switch self {
        case .clock(let h, let m): return (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)")
        case .sun(let event, let offset):
            return offset == 0 ? event.rawValue : event.rawValue + (offset > 0 ? "+" : "") + DurationText.format(offset)
        }
    }
}

/// The house's time zone and place, for clock times and the sun.
public struct ClockContext: Sendable, Hashable {
    public var timeZone: TimeZone
    public var location: Location?

    public init(timeZone: TimeZone, location: Location?) {
        self.timeZone = timeZone
        self.location = location
    }

    /// Seconds after local midnight of `point` on the day of `now`; nil when the sun does not rise or set.
    func secondsOfDay(_ point: TimeOfDay, on now: Date) -> Int? {
        switch point {
        case .clock(let h, let m): return h * 3600 + m * 60
        case .sun(let event, let offset):
            guard let location, let moment = location.time(of: event, offset: offset, onDayOf: now) else { return nil }
            let local = LocalTime(moment, in: timeZone)
            return local.seconds + (local.day - LocalTime(now, in: timeZone).day) * 86_400
        }
    }

    func isWithin(after: TimeOfDay?, before: TimeOfDay?, at now: Date) -> Bool {
        let current = LocalTime(now, in: timeZone).seconds
        let start = after.map { secondsOfDay($0, on: now) }
        let end = before.map { secondsOfDay($0, on: now) }
        // A sun time that does not happen today (polar day or night) makes the window not hold.
        if start == .some(nil) || end == .some(nil) { return false }
        switch (start ?? nil, end ?? nil) {
        case (let s?, let e?): return s <= e ? (current >= s && current < e) : (current >= s || current < e)
        case (let s?, nil): return current >= s
        case (nil, let e?): return current < e
        case (nil, nil): return true
        }
    }
}
