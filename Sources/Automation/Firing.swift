public import Foundation
public import HomeModel
public import JSON

/// What a trigger remembers between runs, kept across restarts.
public struct TriggerRuntime: Sendable, Hashable {
    public var lastFired: Date?
    /// Scheduled fires are counted from here: what falls between it and a restart was missed.
    public var since: Date
    /// Pending "held for" deadlines, by event index.
    public var held: [Int: Date]

    public init(lastFired: Date? = nil, since: Date, held: [Int: Date] = [:]) {
        self.lastFired = lastFired
        self.since = since
        self.held = held
    }
}

/// A trigger that fired: the action sets to run and why.
public struct Firing: Sendable, Hashable {
    public enum Cause: Sendable, Hashable {
        case timer(scheduled: Date)
        case sun(SunEvent, offset: TimeInterval, scheduled: Date)
        case characteristic(CharacteristicPath, value: CharacteristicValue, previous: CharacteristicValue?)
        case held(CharacteristicPath, value: CharacteristicValue?, duration: TimeInterval, since: Date)
    }

    public var trigger: String
    public var actionSets: [String]
    public var cause: Cause
    /// It was due while the gateway was down and fires at start (within the grace window).
    public var late: Bool
    /// An execute-once trigger that disabled itself by firing.
    public var disabledItself: Bool

    /// Fired by time rather than by a device: its record is stored before its writes go out,
    /// so a crash never makes it fire twice.
    public var isTimed: Bool {
        switch cause {
        case .timer, .sun, .held: true
        case .characteristic: false
        }
    }

    public var causeJSON: JSONValue {
        var fields: [String: JSONValue]
        switch cause {
        case .timer(let scheduled): fields = ["kind": "timer", "scheduled": .string(Write.instant(scheduled))]
        case .sun(let event, let offset, let scheduled):
            fields = [
                "kind": "sun", "sun": .string(event.rawValue), "offset": .string(DurationText.format(offset)),
                "scheduled": .string(Write.instant(scheduled)),
            ]
        case .characteristic(let path, let value, let previous):
            fields = [
                "kind": "characteristic", "characteristic": .string(path.description), "value": value.json,
                "previous": previous?.json ?? .null,
            ]
        case .held(let path, let value, let duration, let since):
            fields = [
                "kind": "held", "characteristic": .string(path.description), "value": value?.json ?? .null,
                "for": .string(DurationText.format(duration)), "since": .string(Write.instant(since)),
            ]
        }
        if late { fields["late"] = true }
        return .object(fields)
    }
}

/// `2026-11-23T21:30:00.000Z`, as events and listings write instants.
public func instantText(_ date: Date) -> String { Write.instant(date) }
