import Automation
import Foundation
import HomeModel
import JSON
import Testing

/// A house of values for conditions and deadlines to read.
struct Values {
    var values: [CharacteristicPath: CharacteristicValue] = [:]
    var lookup: (CharacteristicPath) -> CharacteristicValue? { { [values] in values[$0] } }
}

func trigger(_ id: String, _ json: JSONValue, zone: TimeZone = amsterdam, actionSets: [String] = ["scene"]) throws -> Trigger {
    let fields = json.objectValue ?? [:]
    return Trigger(
        id: id, name: id, home: "home", enabled: fields["enabled"]?.boolValue ?? true, actionSets: actionSets,
        kind: try Trigger.kind(from: fields, defaultTimeZone: zone),
        conditions: try Trigger.conditions(from: fields["conditions"]), executeOnce: fields["execute_once"]?.boolValue ?? false)
}

@Suite("The trigger engine: characteristic events, held durations, timers, conditions (injected time)")
struct TriggerEngineTests {
    let motion = path("hall_motion/motion_sensor/motion_detected")
    let lux = path("hall_lux/light_sensor/current_ambient_light_level")
    let t0 = at("2026-11-23T20:00", amsterdam)
    var engine = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil))

    @Test("a characteristic reaching a value fires once per arrival; any change fires on every change")
    mutating func reachingAValue() throws {
        engine.put(
            try trigger("on_motion", ["events": [["characteristic": "hall_motion/motion_sensor/motion_detected", "value": true]]]), now: t0)
        engine.put(try trigger("any", ["events": [["characteristic": "hall_motion/motion_sensor/motion_detected"]]]), now: t0)
        let values = Values()
        let first = engine.changed(motion, to: .bool(true), from: .bool(false), now: t0, value: values.lookup)
        #expect(Set(first.map(\.trigger)) == ["on_motion", "any"])
        #expect(first.first { $0.trigger == "on_motion" }?.cause == .characteristic(motion, value: .bool(true), previous: .bool(false)))
        let off = engine.changed(motion, to: .bool(false), from: .bool(true), now: t0, value: values.lookup)
        #expect(off.map(\.trigger) == ["any"])
        // A stateless button reports the same value again: previous nil means "a new press".
        #expect(engine.changed(motion, to: .bool(true), from: nil, now: t0, value: values.lookup).count == 2)
    }

    @Test("a threshold range fires when it is entered, not while the value moves inside it")
    mutating func thresholdRange() throws {
        engine.put(
            try trigger(
                "dark", ["events": [["characteristic": "hall_lux/light_sensor/current_ambient_light_level", "range": ["max": 50]]]]),
            now: t0)
        let v = Values()
        #expect(engine.changed(lux, to: .float(80), from: .float(120), now: t0, value: v.lookup).isEmpty)
        #expect(engine.changed(lux, to: .float(40), from: .float(80), now: t0, value: v.lookup).map(\.trigger) == ["dark"])
        #expect(engine.changed(lux, to: .float(30), from: .float(40), now: t0, value: v.lookup).isEmpty)
        #expect(engine.changed(lux, to: .float(60), from: .float(30), now: t0, value: v.lookup).isEmpty)
        #expect(
            engine.changed(lux, to: .float(50), from: .float(60), now: t0, value: v.lookup).map(\.trigger) == ["dark"],
            "the bound is inside")
    }

    @Test("no motion for 10 minutes: fires at the deadline; motion before it cancels; nothing fires twice")
    mutating func heldFor() throws {
        engine.put(
            try trigger(
                "idle", ["events": [["characteristic": "hall_motion/motion_sensor/motion_detected", "value": false, "for": "10m"]]]),
            now: t0)
        var v = Values()
        v.values[motion] = .bool(false)
        #expect(engine.changed(motion, to: .bool(false), from: .bool(true), now: t0, value: v.lookup).isEmpty)
        #expect(engine.nextDue() == t0.addingTimeInterval(600))
        #expect(engine.runtime["idle"]?.held == [0: t0.addingTimeInterval(600)], "the deadline is part of what is stored")
        #expect(engine.due(now: t0.addingTimeInterval(599), value: v.lookup).isEmpty)
        let fired = engine.due(now: t0.addingTimeInterval(600), value: v.lookup)
        #expect(fired.map(\.trigger) == ["idle"])
        #expect(fired.first?.cause == .held(motion, value: .bool(false), duration: 600, since: t0))
        #expect(engine.due(now: t0.addingTimeInterval(3600), value: v.lookup).isEmpty)
        #expect(engine.runtime["idle"]?.held.isEmpty == true)

        // Cancelled: motion comes back after 5 minutes.
        let t1 = t0.addingTimeInterval(7200)
        _ = engine.changed(motion, to: .bool(true), from: .bool(false), now: t1, value: v.lookup)
        _ = engine.changed(motion, to: .bool(false), from: .bool(true), now: t1, value: v.lookup)
        v.values[motion] = .bool(true)
        _ = engine.changed(motion, to: .bool(true), from: .bool(false), now: t1.addingTimeInterval(300), value: v.lookup)
        #expect(engine.due(now: t1.addingTimeInterval(3600), value: v.lookup).isEmpty)
        #expect(engine.runtime["idle"]?.held.isEmpty == true)
        // Started again, it counts from the new change.
        v.values[motion] = .bool(false)
        _ = engine.changed(motion, to: .bool(false), from: .bool(true), now: t1.addingTimeInterval(400), value: v.lookup)
        #expect(engine.due(now: t1.addingTimeInterval(999), value: v.lookup).isEmpty)
        #expect(engine.due(now: t1.addingTimeInterval(1000), value: v.lookup).count == 1)
    }

    @Test("a restart with a pending deadline: the new engine fires once, on time")
    mutating func restartWithDeadline() throws {
        let idle = try trigger(
            "idle", ["events": [["characteristic": "hall_motion/motion_sensor/motion_detected", "value": false, "for": "10m"]]])
        engine.put(idle, now: t0)
        var v = Values()
        v.values[motion] = .bool(false)
        _ = engine.changed(motion, to: .bool(false), from: .bool(true), now: t0, value: v.lookup)
        let stored = engine.runtime["idle"]!

        var restarted = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil))
        #expect(restarted.load(idle, runtime: stored, now: t0.addingTimeInterval(240), value: v.lookup).isEmpty)
        #expect(restarted.nextDue() == t0.addingTimeInterval(600))
        #expect(restarted.due(now: t0.addingTimeInterval(599), value: v.lookup).isEmpty)
        #expect(restarted.due(now: t0.addingTimeInterval(600), value: v.lookup).map(\.trigger) == ["idle"])
        #expect(restarted.due(now: t0.addingTimeInterval(601), value: v.lookup).isEmpty)

        // Down across the deadline: it fires at start, once, if the value still holds.
        var late = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil))
        let firings = late.load(idle, runtime: stored, now: t0.addingTimeInterval(900), value: v.lookup)
        #expect(firings.map(\.late) == [true])
        #expect(late.due(now: t0.addingTimeInterval(2000), value: v.lookup).isEmpty)
        v.values[motion] = .bool(true)
        var moved = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil))
        #expect(moved.load(idle, runtime: stored, now: t0.addingTimeInterval(900), value: v.lookup).isEmpty)
    }

    @Test("22:30 daily: fires on time, once; missed while down, it fires at start only inside the grace window")
    mutating func timerAndGrace() throws {
        let night = try trigger("night", ["timer": ["recurrence": ["at": "22:30"]]])
        engine.put(night, now: t0)
        let v = Values()
        #expect(engine.nextDue() == at("2026-11-23T22:30", amsterdam))
        #expect(engine.due(now: at("2026-11-23T22:29:59", amsterdam), value: v.lookup).isEmpty)
        let fired = engine.due(now: at("2026-11-23T22:30", amsterdam), value: v.lookup)
        #expect(fired.map(\.cause) == [.timer(scheduled: at("2026-11-23T22:30", amsterdam))])
        #expect(engine.due(now: at("2026-11-23T22:31", amsterdam), value: v.lookup).isEmpty)
        #expect(engine.nextDue() == at("2026-11-24T22:30", amsterdam))
        let stored = engine.runtime["night"]!

        // Down from 22:00 to 22:40 the next day: no grace, nothing fires at start; the day after is next.
        var strict = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil))
        #expect(strict.load(night, runtime: stored, now: at("2026-11-24T22:40", amsterdam), value: v.lookup).isEmpty)
        #expect(strict.nextDue() == at("2026-11-25T22:30", amsterdam))
        // With 15 minutes of grace it fires once at start, marked late; a restart after that does not fire it again.
        var lenient = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil), missedGrace: 900)
        let late = lenient.load(night, runtime: stored, now: at("2026-11-24T22:40", amsterdam), value: v.lookup)
        #expect(late.map(\.late) == [true] && late.map(\.cause) == [.timer(scheduled: at("2026-11-24T22:30", amsterdam))])
        var again = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil), missedGrace: 900)
        #expect(again.load(night, runtime: lenient.runtime["night"]!, now: at("2026-11-24T22:41", amsterdam), value: v.lookup).isEmpty)
        // Outside the window: nothing.
        var tooLate = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil), missedGrace: 900)
        #expect(tooLate.load(night, runtime: stored, now: at("2026-11-24T22:46", amsterdam), value: v.lookup).isEmpty)
    }

    @Test("changing a trigger keeps when it last fired; a miss skipped at one start is not fired at a later one")
    mutating func updatesAndRepeatedStarts() throws {
        let night = try trigger("night", ["timer": ["recurrence": ["at": "22:30"]]])
        engine.put(night, now: t0)
        _ = engine.due(now: at("2026-11-23T22:30", amsterdam), value: Values().lookup)
        let fired = engine.runtime["night"]?.lastFired
        #expect(fired != nil)
        engine.put(try trigger("night", ["timer": ["recurrence": ["at": "23:00"]]]), now: at("2026-11-23T22:35", amsterdam))
        #expect(engine.runtime["night"]?.lastFired == fired)

        // Down over 22:30 the next day: the first start (no grace) skips it; a second start with grace must not fire it.
        let stored = TriggerRuntime(lastFired: fired, since: at("2026-11-23T22:30", amsterdam))
        var first = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil))
        #expect(first.load(night, runtime: stored, now: at("2026-11-24T22:33", amsterdam), value: Values().lookup).isEmpty)
        var second = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil), missedGrace: 900)
        #expect(
            second.load(night, runtime: first.runtime["night"]!, now: at("2026-11-24T22:35", amsterdam), value: Values().lookup).isEmpty)
    }

    @Test("conditions decide at fire time: comparisons, time windows across midnight, weekdays, all/any/not")
    mutating func conditions() throws {
        engine.put(
            try trigger(
                "night_motion",
                [
                    "events": [["characteristic": "hall_motion/motion_sensor/motion_detected", "value": true]],
                    "conditions": [
                        "all": [
                            ["characteristic": "hall_lux/light_sensor/current_ambient_light_level", "op": "<", "value": 50],
                            ["time": ["after": "22:00", "before": "06:00"]],
                            ["not": ["weekdays": ["sun"]]],
                        ]
                    ],
                ]), now: t0)
        var v = Values()
        v.values[lux] = .float(10)
        func fires(_ when: String) -> Bool {
            !engine.changed(motion, to: .bool(true), from: .bool(false), now: at(when, amsterdam), value: v.lookup).isEmpty
        }
        #expect(fires("2026-11-23T23:00"))  // Monday night
        #expect(fires("2026-11-24T05:59"))
        #expect(!fires("2026-11-24T06:00"))
        #expect(!fires("2026-11-23T21:59"))
        #expect(!fires("2026-11-29T23:00"), "Sunday")
        v.values[lux] = .float(50)
        #expect(!fires("2026-11-23T23:00"), "50 is not below 50")
        v.values[lux] = nil
        #expect(!fires("2026-11-23T23:00"), "a value not known yet holds no comparison")
    }

    @Test("disabled triggers do nothing; enabling does not catch up; execute-once disables itself")
    mutating func enableAndExecuteOnce() throws {
        engine.put(
            try trigger(
                "once", ["events": [["characteristic": "hall_motion/motion_sensor/motion_detected", "value": true]], "execute_once": true]),
            now: t0)
        engine.put(try trigger("night", ["timer": ["recurrence": ["at": "22:30"]], "enabled": false]), now: t0)
        let v = Values()
        #expect(engine.due(now: at("2026-11-24T00:00", amsterdam), value: v.lookup).isEmpty)
        engine.setEnabled("night", true, now: at("2026-11-24T00:00", amsterdam))
        #expect(engine.nextDue() == at("2026-11-24T22:30", amsterdam))
        let first = engine.changed(motion, to: .bool(true), from: .bool(false), now: t0, value: v.lookup)
        #expect(first.map(\.disabledItself) == [true] && engine.triggers["once"]?.enabled == false)
        #expect(engine.changed(motion, to: .bool(true), from: .bool(false), now: t0, value: v.lookup).isEmpty)
    }

    @Test("30 minutes before sunset, every day, at the sun's time in Amsterdam; a conditions window after sunset")
    func sunEvents() throws {
        let location = Location(latitude: 52.37, longitude: 4.90, timeZone: amsterdam)
        var engine = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: location))
        engine.put(try trigger("dusk", ["events": [["sun": "sunset", "offset": "-30m"]]]), now: at("2026-11-23T08:00", amsterdam))
        let sunset = try #require(
            Sun.time(of: .sunset, year: 2026, month: 11, day: 23, latitude: 52.37, longitude: 4.90, timeZone: amsterdam))
        #expect(engine.nextDue() == sunset.addingTimeInterval(-1800))
        let fired = engine.due(now: sunset.addingTimeInterval(-1800), value: Values().lookup)
        #expect(fired.map(\.cause) == [.sun(.sunset, offset: -1800, scheduled: sunset.addingTimeInterval(-1800))])
        let tomorrow = try #require(
            Sun.time(of: .sunset, year: 2026, month: 11, day: 24, latitude: 52.37, longitude: 4.90, timeZone: amsterdam))
        #expect(engine.nextDue() == tomorrow.addingTimeInterval(-1800))
        let window = Condition.time(after: .sun(.sunset, offset: 0), before: .clock(hour: 23, minute: 0))
        let clock = ClockContext(timeZone: amsterdam, location: location)
        #expect(window.holds(now: sunset.addingTimeInterval(60), clock: clock, value: { _ in nil }))
        #expect(!window.holds(now: sunset.addingTimeInterval(-60), clock: clock, value: { _ in nil }))
    }

    @Test("a definition written out reads back the same")
    func roundTrip() throws {
        let definitions: [JSONValue] = [
            ["timer": ["fire_date": "2026-12-01T07:00", "time_zone": "America/New_York", "recurrence": ["every": 2, "unit": "weeks"]]],
            ["timer": ["recurrence": ["at": "07:00", "weekdays": ["mon", "fri"]]], "execute_once": true],
            [
                "events": [
                    ["characteristic": "a/lightbulb/brightness", "range": ["min": 10.5]], ["sun": "sunrise", "offset": "1h30m"],
                    ["characteristic": "b/motion_sensor/motion_detected", "value": false, "for": "90s"],
                ],
                "conditions": [
                    "any": [
                        ["not": ["weekdays": ["sat", "sun"]]], ["time": ["after": "sunset-15m", "before": "01:00"]],
                        ["characteristic": "c/outlet/on", "op": "!=", "value": true],
                    ]
                ],
            ],
        ]
        for json in definitions {
            let original = try trigger("t", json)
            let written = JSONValue.object(original.definitionJSON)
            let again = try trigger("t", written)
            #expect(again == original, "\(written)")
        }
    }

    @Test("events are indexed by characteristic: 10,000 unrelated triggers are never looked at")
    mutating func indexed() throws {
        for i in 0..<10_000 {
            engine.put(
                try trigger(
                    "t\(i)",
                    ["events": [["characteristic": .string("sensor_\(i)/temperature_sensor/current_temperature"), "range": ["min": 30]]]]),
                now: t0)
        }
        engine.put(
            try trigger("on_motion", ["events": [["characteristic": "hall_motion/motion_sensor/motion_detected", "value": true]]]), now: t0)
        let before = engine.evaluations
        #expect(engine.changed(motion, to: .bool(true), from: .bool(false), now: t0, value: Values().lookup).count == 1)
        #expect(engine.evaluations - before == 1)
        engine.remove("on_motion")
        #expect(engine.changed(motion, to: .bool(false), from: .bool(true), now: t0, value: Values().lookup).isEmpty)
        #expect(engine.evaluations - before == 1)
    }
}
