import Foundation
import JSON
import Testing

@testable import Automation

@Suite("Durations are whole seconds, with one rule when added and when read back")
struct DurationRuleTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func held(_ duration: JSONValue) throws -> Trigger.Kind {
        try Trigger.kind(
            from: ["events": [["characteristic": "hall/motion_sensor/motion_detected", "value": false, "for": duration]]],
            defaultTimeZone: utc)
    }

    @Test(
        "\"for\" of 0.4s, 0.5s, 1.5 or 0s is refused with why; 1s and 7d are kept as written",
        arguments: [
            (JSONValue.string("0.4s"), "events[0].for: \"0.4s\" is not a whole number of seconds"),
            (.string("0.9s"), "is not a whole number of seconds"),
            (.double(1.5), "1.5 is not a whole number of seconds"), (.string("0s"), "expected a duration from 1s to 7d"),
            (.string("8d"), "expected a duration from 1s to 7d"),
        ])
    func refused(duration: JSONValue, message: String) {
        #expect { try Self.held(duration) } throws: { "\($0)".contains(message) }
    }

    @Test("what is accepted reads back the same from its stored form")
    func roundTrip() throws {
        for text in ["1s", "90s", "10m", "1h30m", "7d"] {
            let kind = try Self.held(.string(text))
            let stored = Trigger(id: "t", name: "t", home: "home", actionSets: [], kind: kind).json
            let again = try Trigger.kind(from: stored, defaultTimeZone: Self.utc)
            #expect(Trigger(id: "t", name: "t", home: "home", actionSets: [], kind: again).json == stored, "\(text)")
        }
    }
}

@Suite("A timer that names no zone follows the house's")
struct TimerZoneTests {
    static let daily: [String: JSONValue] = ["timer": ["recurrence": ["at": "21:00"]]]

    @Test("made while the house was in UTC, it fires at 21:00 Amsterdam time once the house is in Amsterdam; a named zone stays")
    func followsTheHouse() throws {
        let made = try Trigger.kind(from: Self.daily, defaultTimeZone: utc)
        let trigger = Trigger(id: "evening", name: "Evening", home: "home", actionSets: [], kind: made)
        #expect(trigger.json["timer"]?["time_zone"] == nil, "stored without a zone, so it follows the house")
        let stored = try Trigger.kind(from: trigger.json, defaultTimeZone: utc)
        var engine = TriggerEngine(clock: ClockContext(timeZone: amsterdam, location: nil))
        let now = at("2026-11-24T12:00", amsterdam)
        engine.put(Trigger(id: "evening", name: "Evening", home: "home", actionSets: [], kind: stored), now: now)
        #expect(engine.nextFires(for: "evening").map { wall($0, amsterdam) } == "2026-11-24 21:00 +01:00")

        let named = try Trigger.kind(
            from: ["timer": ["recurrence": ["at": "21:00"], "time_zone": "America/New_York"]], defaultTimeZone: utc)
        engine.put(Trigger(id: "ny", name: "NY", home: "home", actionSets: [], kind: named), now: now)
        #expect(engine.nextFires(for: "ny").map { wall($0, newYork) } == "2026-11-24 21:00 -05:00")
    }
}
