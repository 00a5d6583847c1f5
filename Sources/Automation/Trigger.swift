public import Foundation
public import HomeModel

/// An automation: when it fires (a timer or events), under which conditions, and the action sets it runs.
public struct Trigger: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case timer(TimerSchedule)
        /// Fires when any one of the events happens.
        case events([Event])
    }

    public let id: String
    public var name: String
    public let home: String
    public var enabled: Bool
    public var actionSets: [String]
    public var kind: Kind
    public var conditions: Condition?
    /// Disabled after it fires once (HomeKit's executeOnce).
    public var executeOnce: Bool

    public init(
        id: String, name: String, home: String, enabled: Bool = true, actionSets: [String], kind: Kind,
        conditions: Condition? = nil, executeOnce: Bool = false
    ) {
        self.id = id
        self.name = name
        self.home = home
        self.enabled = enabled
        self.actionSets = actionSets
        self.kind = kind
        self.conditions = conditions
        self.executeOnce = executeOnce
    }

    public var events: [Event] { if case .events(let events) = kind { events } else { [] } }

    /// Every characteristic its events and conditions read.
    public var characteristics: Set<CharacteristicPath> {
        var paths = Set(events.compactMap(\.path))
        conditions?.collectPaths(into: &paths)
        return paths
    }
}

extension Trigger {
    /// One event of an event trigger (HomeKit's `HMEvent`); not `TriggerEvent`, the core's event about a trigger.
    public enum Event: Sendable, Hashable {
        /// A characteristic changing (to a value, into a range, or at all), optionally held for a duration.
        case characteristic(CharacteristicPath, ValueMatch, held: TimeInterval?)
        /// Sunrise or sunset, plus an offset in seconds (negative: before).
        case sun(SunEvent, offset: TimeInterval)

        public var path: CharacteristicPath? {
            if case .characteristic(let path, _, _) = self { path } else { nil }
        }
    }
}

/// What a characteristic event waits for.
public enum ValueMatch: Sendable, Hashable {
    case anyChange
    case value(CharacteristicValue)
    /// A threshold range: either bound may be missing; entering the range is the event.
    case range(min: Double?, max: Double?)

    public func matches(_ value: CharacteristicValue?) -> Bool {
        guard let value else { return false }
        switch self {
        case .anyChange: return true
        case .value(let wanted): return wanted == value || (wanted.doubleValue != nil && wanted.doubleValue == value.doubleValue)
        case .range(let min, let max):
            guard let number = value.doubleValue else { return false }
            return (min.map { number >= $0 } ?? true) && (max.map { number <= $0 } ?? true)
        }
    }
}

/// A timer: a first fire date and a recurrence, in a time zone.
public struct TimerSchedule: Sendable, Hashable {
    public enum Unit: String, Sendable, Hashable, CaseIterable {
        case minutes, hours, days, weeks
        var seconds: Int {
            switch self {
            case .minutes: 60;
            case .hours: 3600;
            case .days: 86_400;
            case .weeks: 604_800
            }
        }
    }

    public enum Recurrence: Sendable, Hashable {
        /// Every N units from the fire date; days and weeks keep the wall-clock time across DST.
        case every(Int, Unit)
        /// At a clock time on some weekdays (ISO: Monday 1 ... Sunday 7).
        case calendar(hour: Int, minute: Int, weekdays: Set<Int>)
    }

    /// The first fire, as a wall time in `timeZone`; optional for a calendar recurrence.
    public var fireDate: LocalTime?
    public var timeZone: TimeZone
    public var recurrence: Recurrence?
    /// No zone was given: the timer keeps the house's (`location.time_zone`), also after it changes.
    public var followsHouseZone: Bool

    public init(fireDate: LocalTime?, timeZone: TimeZone, recurrence: Recurrence?, followsHouseZone: Bool = false) {
        self.fireDate = fireDate
        self.timeZone = timeZone
        self.recurrence = recurrence
        self.followsHouseZone = followsHouseZone
    }

    /// The same definition: a timer that follows the house's zone is the same whatever zone it was read in.
    public static func == (a: TimerSchedule, b: TimerSchedule) -> Bool {
        a.fireDate == b.fireDate && a.recurrence == b.recurrence && a.followsHouseZone == b.followsHouseZone
            && (a.followsHouseZone || a.timeZone == b.timeZone)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fireDate)
        hasher.combine(recurrence)
        hasher.combine(followsHouseZone)
        if !followsHouseZone { hasher.combine(timeZone) }
    }
}

extension Trigger {
    /// Whether a definition needs the house's location (sun events, or times relative to the sun).
    public static func usesSun(_ kind: Kind, _ conditions: Condition?) -> Bool {
        if case .events(let events) = kind, events.contains(where: { if case .sun = $0 { true } else { false } }) { return true }
        return conditions?.usesSun ?? false
    }
}

extension Condition {
    var usesSun: Bool {
        switch self {
        case .compare, .weekdays: false
        case .time(let after, let before):
            [after, before].contains { if case .sun? = $0 { true } else { false } }
        case .all(let items), .any(let items): items.contains(where: \.usesSun)
        case .not(let inner): inner.usesSun
        }
    }
}
