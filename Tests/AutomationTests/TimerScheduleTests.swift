import Automation
import Foundation
import JSON
import Testing

@Suite("Timer recurrences, across daylight-saving changes")
struct TimerScheduleTests {
    @Test("22:30 daily stays 22:30 on the wall through both Amsterdam changes")
    func dailyAmsterdam() throws {
        let timer = try schedule(["recurrence": ["at": "22:30"]], zone: amsterdam)
        let spring = fires(timer, after: at("2026-03-27T12:00", amsterdam), count: 4).map { wall($0, amsterdam) }
        #expect(spring == ["2026-03-27 22:30 +01:00", "2026-03-28 22:30 +01:00", "2026-03-29 22:30 +02:00", "2026-03-30 22:30 +02:00"])
        let autumn = fires(timer, after: at("2026-10-24T12:00", amsterdam), count: 3).map { wall($0, amsterdam) }
        #expect(autumn == ["2026-10-24 22:30 +02:00", "2026-10-25 22:30 +01:00", "2026-10-26 22:30 +01:00"])
    }

    @Test("weekdays at 07:00 in New York skips the weekend and keeps 07:00 across the March change")
    func weekdaysNewYork() throws {
        let timer = try schedule(["recurrence": ["at": "07:00", "weekdays": ["mon", "tue", "wed", "thu", "fri"]]], zone: newYork)
        // 2026-03-08 is a Sunday, the day the US clocks go forward.
        let dates = fires(timer, after: at("2026-03-06T08:00", newYork), count: 3).map { wall($0, newYork) }
        #expect(dates == ["2026-03-09 07:00 -04:00", "2026-03-10 07:00 -04:00", "2026-03-11 07:00 -04:00"])
        let november = fires(timer, after: at("2026-10-30T08:00", newYork), count: 2).map { wall($0, newYork) }
        #expect(november == ["2026-11-02 07:00 -05:00", "2026-11-03 07:00 -05:00"])
    }

    @Test("a clock time that does not exist fires when the clocks jump; one that happens twice fires once")
    func gapAndOverlap() throws {
        let timer = try schedule(["recurrence": ["at": "02:30"]], zone: amsterdam)
        let spring = fires(timer, after: at("2026-03-28T12:00", amsterdam), count: 3).map { wall($0, amsterdam) }
        #expect(spring == ["2026-03-29 03:00 +02:00", "2026-03-30 02:30 +02:00", "2026-03-31 02:30 +02:00"])
        let autumn = fires(timer, after: at("2026-10-24T12:00", amsterdam), count: 3).map { wall($0, amsterdam) }
        #expect(autumn == ["2026-10-25 02:30 +02:00", "2026-10-26 02:30 +01:00", "2026-10-27 02:30 +01:00"])
        let nyTimer = try schedule(["recurrence": ["at": "01:30"]], zone: newYork)
        let fallBack = fires(nyTimer, after: at("2026-10-31T12:00", newYork), count: 2).map { wall($0, newYork) }
        #expect(fallBack == ["2026-11-01 01:30 -04:00", "2026-11-02 01:30 -05:00"])
    }

    @Test("every 2 days keeps the wall time; every 90 minutes is 90 elapsed minutes across the change")
    func intervals() throws {
        let days = try schedule(["fire_date": "2026-03-27T08:15", "recurrence": ["every": 2, "unit": "days"]], zone: amsterdam)
        #expect(
            fires(days, after: at("2026-03-27T00:00", amsterdam), count: 3).map { wall($0, amsterdam) }
                == ["2026-03-27 08:15 +01:00", "2026-03-29 08:15 +02:00", "2026-03-31 08:15 +02:00"])
        let weekly = try schedule(["fire_date": "2026-10-19T18:00", "recurrence": ["every": 1, "unit": "weeks"]], zone: newYork)
        #expect(
            fires(weekly, after: at("2026-10-20T00:00", newYork), count: 2).map { wall($0, newYork) }
                == ["2026-10-26 18:00 -04:00", "2026-11-02 18:00 -05:00"])
        let minutes = try schedule(["fire_date": "2026-03-29T00:30", "recurrence": ["every": 90, "unit": "minutes"]], zone: amsterdam)
        #expect(
            fires(minutes, after: at("2026-03-29T00:00", amsterdam), count: 3).map { wall($0, amsterdam) }
                == ["2026-03-29 00:30 +01:00", "2026-03-29 03:00 +02:00", "2026-03-29 04:30 +02:00"])
    }

    @Test("a one-off timer fires once; a fire date with an offset is that moment")
    func oneOff() throws {
        let timer = try schedule(["fire_date": "2026-12-31T23:59"], zone: amsterdam)
        #expect(timer.next(after: at("2026-12-01T00:00", amsterdam)).map { wall($0, amsterdam) } == "2026-12-31 23:59 +01:00")
        #expect(timer.next(after: at("2026-12-31T23:59", amsterdam)) == nil)
        let pinned = try schedule(["fire_date": "2026-07-01T12:00:00Z", "time_zone": "Europe/Amsterdam"], zone: utc)
        #expect(pinned.next(after: .distantPast).map { wall($0, amsterdam) } == "2026-07-01 14:00 +02:00")
    }

    @Test("what was missed: the latest fire in a window, found without walking a year of minutes")
    func latestMissed() throws {
        let timer = try schedule(["fire_date": "2025-01-01T00:00", "recurrence": ["every": 1, "unit": "minutes"]], zone: utc)
        let latest = timer.latest(atOrBefore: at("2026-06-01T12:34:56", utc), since: at("2025-02-01T00:00", utc))
        #expect(latest.map { wall($0, utc) } == "2026-06-01 12:34 +00:00")
        let daily = try schedule(["recurrence": ["at": "22:30"]], zone: amsterdam)
        #expect(daily.latest(atOrBefore: at("2026-11-23T22:29", amsterdam), since: at("2026-11-23T08:00", amsterdam)) == nil)
        #expect(
            daily.latest(atOrBefore: at("2026-11-23T22:31", amsterdam), since: at("2026-11-20T08:00", amsterdam)).map {
                wall($0, amsterdam)
            }
                == "2026-11-23 22:30 +01:00")
    }

    @Test("bad timers are refused with where and why")
    func refused() {
        func problem(_ json: JSONValue) -> String {
            do {
                _ = try Trigger.kind(from: ["timer": json], defaultTimeZone: utc)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(
            problem(["recurrence": ["every": 0, "unit": "days"], "fire_date": "2026-01-01T00:00"])
                == "timer.recurrence.every: expected a whole number from 1 to 10000")
        #expect(
            problem(["recurrence": ["every": 2, "unit": "fortnights"], "fire_date": "2026-01-01T00:00"])
                == "timer.recurrence.unit: expected minutes, hours, days or weeks")
        #expect(
            problem(["recurrence": ["every": 2, "unit": "day"], "fire_date": "2026-01-01T00:00"])
                == "timer.recurrence.unit: expected minutes, hours, days or weeks (did you mean 'days'?)")
        #expect(
            problem(["recurrence": ["every": 2, "unit": "days"]])
                == "timer.fire_date: missing: a one-off or repeating-interval timer starts at its fire date")
        #expect(problem(["recurrence": ["at": "25:00"]]) == "timer.recurrence.at: expected a clock time like 22:30")
        #expect(problem(["fire_date": "2026-02-30T10:00"]).hasPrefix("timer.fire_date: expected a date and time"))
        #expect(
            problem(["time_zone": "Mars/Olympus", "fire_date": "2026-01-01T00:00"])
                == "timer.time_zone: unknown time zone 'Mars/Olympus' (expected a name like Europe/Amsterdam)")
        #expect(
            problem(["recurence": ["at": "22:30"]])
                == "timer.recurence: unknown key (did you mean 'recurrence'?); expected one of fire_date, time_zone, recurrence")
        #expect(
            problem(["recurrence": ["at": "22:30", "weekdays": ["funday"]]])
                == "timer.recurrence.weekdays[0]: expected a day: mon, tue, wed, thu, fri, sat, sun")
    }
}
