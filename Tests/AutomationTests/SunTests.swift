import Automation
import Foundation
import Testing

// Every expected clock time below is a published value, rounded to the minute by its publisher, with its source
// named beside it; the algorithm is held to two minutes of it. Checks made without a table say so.

@Suite("Sunrise and sunset by the NOAA algorithm")
struct SunTests {
    let amsterdam = Place(latitude: 52.37, longitude: 4.90, zone: "Europe/Amsterdam")
    /// The reference point of the Dutch AIP's sunrise and sunset tables.
    let aipPoint = Place(latitude: 52.0, longitude: 5.0, zone: "Europe/Amsterdam")
    let newYork = Place(latitude: 40.7128, longitude: -74.0060, zone: "America/New_York")
    let sydney = Place(latitude: -33.8688, longitude: 151.2093, zone: "Australia/Sydney")
    let honolulu = Place(latitude: 21.3069, longitude: -157.8583, zone: "Pacific/Honolulu")
    let tromso = Place(latitude: 69.65, longitude: 18.96, zone: "Europe/Oslo")

    // MARK: - Amsterdam and the Dutch AIP's reference point

    @Test("Amsterdam in summer time, against timeanddate.com")
    func amsterdamSummerTime() {
        // timeanddate.com's Amsterdam times, as quoted by Secret Amsterdam ("Tonight Will Be Amsterdam's Last 7pm
        // Sunset Until March 2022"): 8 October 2021 sunset 19:01, 9 October 18:58 (CEST).
        expectClose(amsterdam.time(.sunset, 2021, 10, 8), amsterdam.clock(2021, 10, 8, 19, 1))
        expectClose(amsterdam.time(.sunset, 2021, 10, 9), amsterdam.clock(2021, 10, 9, 18, 58))
    }

    @Test("the Netherlands at 52°N 5°E in winter, winter time, summer time and at the June solstice")
    func dutchReferencePoint() {
        // AIP Netherlands GEN 2.7 "Uniform daylight periods 2019" (LVNL), for 52°00'N 005°00'E, in UTC; its periods
        // run from 15 minutes before sunrise to 15 minutes after sunset, so 15 minutes are added back here.
        let rows: [(month: Int, day: Int, from: (Int, Int), to: (Int, Int))] = [
            (1, 1, (7, 33), (15, 54)),  // winter, CET
            (1, 21, (7, 20), (16, 23)),
            (3, 24, (5, 19), (18, 14)),  // the last Sunday of winter time
            (4, 1, (5, 1), (18, 28)),  // summer time, CEST
            (6, 21, (3, 5), (20, 19)),  // the June solstice
        ]
        for row in rows {
            let sunrise = utc(2019, row.month, row.day, row.from.0, row.from.1).addingTimeInterval(15 * 60)
            let sunset = utc(2019, row.month, row.day, row.to.0, row.to.1).addingTimeInterval(-15 * 60)
            expectClose(aipPoint.time(.sunrise, 2019, row.month, row.day), sunrise)
            expectClose(aipPoint.time(.sunset, 2019, row.month, row.day), sunset)
        }
        // On the local clock: 08:48 CET on New Year's Day, 07:16 CEST on 1 April.
        expectClose(aipPoint.time(.sunrise, 2019, 1, 1), aipPoint.clock(2019, 1, 1, 8, 48))
        expectClose(aipPoint.time(.sunrise, 2019, 4, 1), aipPoint.clock(2019, 4, 1, 7, 16))
    }

    @Test("Europe/Amsterdam's change days: the 23-hour and the 25-hour day")
    func amsterdamChangeDays() throws {
        // No published table row for a change day was found. 31 March 2019 (clocks 02:00 → 03:00) lies between the
        // AIP GEN 2.7 2019 rows for 24 March (sunrise 05:34, sunset 17:59 UTC) and 1 April (05:16, 18:13 UTC), so
        // its times of day must lie between theirs (a minute wider for the table's rounding).
        let sunrise = try #require(aipPoint.time(.sunrise, 2019, 3, 31))  // a 23-hour day
        let sunset = try #require(aipPoint.time(.sunset, 2019, 3, 31))
        #expect(sunrise > utc(2019, 3, 31, 5, 15) && sunrise < utc(2019, 3, 31, 5, 35))
        #expect(sunset > utc(2019, 3, 31, 17, 58) && sunset < utc(2019, 3, 31, 18, 14))
        #expect(aipPoint.minutesOfDay(sunrise) / 60 == 7)  // already summer time on the clock
        #expect(aipPoint.next(.sunrise, after: aipPoint.clock(2019, 3, 31, 1, 30)) == sunrise)

        // 27 October 2019 (03:00 → 02:00), without a table: the sunrise comes about an hour earlier on the clock
        // than the day before, though a minute or two later in absolute time.
        let before = try #require(amsterdam.time(.sunrise, 2019, 10, 26))
        let after = try #require(amsterdam.time(.sunrise, 2019, 10, 27))
        let clockShift = Double(amsterdam.minutesOfDay(after) - amsterdam.minutesOfDay(before))
        #expect(clockShift > -60 && clockShift < -55)
        #expect(after.timeIntervalSince(before) > 86_400 && after.timeIntervalSince(before) < 86_400 + 180)
        #expect(amsterdam.next(.sunset, after: after) == amsterdam.time(.sunset, 2019, 10, 27))
    }

    // MARK: - New York

    @Test("New York across the March 2025 change, against timeanddate.com")
    func newYorkSpringForward() {
        // timeanddate.com's New York City times, as quoted by FOX 5 New York ("Daylight saving time: When NYC will
        // regain lost hour of AM sunlight", 9 March 2025): 8 March sunrise 6:18, sunset 5:55 p.m. (EST);
        // 9 March, the change day, sunrise 7:16, sunset 6:56 p.m. (EDT).
        expectClose(newYork.time(.sunrise, 2025, 3, 8), newYork.clock(2025, 3, 8, 6, 18))
        expectClose(newYork.time(.sunset, 2025, 3, 8), newYork.clock(2025, 3, 8, 17, 55))
        expectClose(newYork.time(.sunrise, 2025, 3, 9), newYork.clock(2025, 3, 9, 7, 16))
        expectClose(newYork.time(.sunset, 2025, 3, 9), newYork.clock(2025, 3, 9, 18, 56))
        // timeanddate.com via FOX 5 New York ("Spring 2024: When Daylight Saving Time begins…"): 10 March 2024,
        // the change day, sunset 6:57 p.m.
        expectClose(newYork.time(.sunset, 2024, 3, 10), newYork.clock(2024, 3, 10, 18, 57))
        // From midnight of the change day, the next sunrise is that morning's.
        expectClose(newYork.next(.sunrise, after: newYork.clock(2025, 3, 9, 0, 0)), newYork.clock(2025, 3, 9, 7, 16))
    }

    @Test("New York in winter, against the US Naval Observatory and the Hayden Planetarium")
    func newYorkWinter() {
        // US Naval Observatory figures for New York City, as quoted by Marie Winn ("The annual SOLSTICE message",
        // 14 December 2006): 13 December 2006 sunset 4:29 p.m., 14 December sunrise 7:12 a.m.,
        // 10 January 2007 sunrise 7:19 a.m. (EST).
        expectClose(newYork.time(.sunset, 2006, 12, 13), newYork.clock(2006, 12, 13, 16, 29))
        expectClose(newYork.time(.sunrise, 2006, 12, 14), newYork.clock(2006, 12, 14, 7, 12))
        expectClose(newYork.time(.sunrise, 2007, 1, 10), newYork.clock(2007, 1, 10, 7, 19))
        // AMNH Hayden Planetarium ("The Winter Sun", December 2016): 31 December 2016 sunrise 7:20 a.m.,
        // sunset 4:38 p.m.
        expectClose(newYork.time(.sunrise, 2016, 12, 31), newYork.clock(2016, 12, 31, 7, 20))
        expectClose(newYork.time(.sunset, 2016, 12, 31), newYork.clock(2016, 12, 31, 16, 38))
    }

    // MARK: - The southern hemisphere and the far side of the date line

    @Test("Sydney in summer, against Sydney Observatory")
    func sydneySummer() throws {
        // Sydney Observatory (MAAS), "Summer solstice 2008 and the earliest sunrise and the latest sunset", from the
        // 2009 Australian Sky Guide: sunrise 5:37 a.m. from 1 to 10 December 2008, sunset 20:10 from 2 to
        // 12 January 2009 (AEDT).
        expectClose(sydney.time(.sunrise, 2008, 12, 1), sydney.clock(2008, 12, 1, 5, 37))
        expectClose(sydney.time(.sunrise, 2008, 12, 10), sydney.clock(2008, 12, 10, 5, 37))
        expectClose(sydney.time(.sunset, 2009, 1, 2), sydney.clock(2009, 1, 2, 20, 10))
        expectClose(sydney.time(.sunset, 2009, 1, 12), sydney.clock(2009, 1, 12, 20, 10))
        // Sydney Observatory, "End of daylight saving means end of dark mornings" (April 2014): sunrise 7:10 a.m.
        // on Saturday 5 April 2014, the day before summer time ends.
        expectClose(sydney.time(.sunrise, 2014, 4, 5), sydney.clock(2014, 4, 5, 7, 10))
        // A Sydney sunrise falls on the previous UTC day.
        let sunrise = try #require(sydney.time(.sunrise, 2008, 12, 1))
        #expect(utcDay(of: sunrise) == 30)
    }

    @Test("Honolulu, whose sunsets fall on the next UTC day, against the Bishop Museum")
    func honoluluWinter() throws {
        // Bishop Museum, "Hawai'i Sunrise & Sunset Times" for Honolulu (HST, a table for any year): January 1
        // 7:10 / 6:01, January 15 7:12 / 6:11, February 1 7:09 / 6:22.
        let table = [(1, 1, (7, 10), (18, 1)), (1, 15, (7, 12), (18, 11)), (2, 1, (7, 9), (18, 22))]
        for (month, day, rise, set) in table {
            expectClose(honolulu.time(.sunrise, 2025, month, day), honolulu.clock(2025, month, day, rise.0, rise.1))
            expectClose(honolulu.time(.sunset, 2025, month, day), honolulu.clock(2025, month, day, set.0, set.1))
        }
        let sunset = try #require(honolulu.time(.sunset, 2025, 1, 1))
        #expect(utcDay(of: sunset) == 2)  // 04:01 UTC on 2 January
    }

    // MARK: - Tromsø, inside the Arctic Circle

    @Test("Tromsø: polar night in late December, the sun back on 15 January")
    func tromsoPolarNight() throws {
        for day in [21, 28] {
            #expect(tromso.time(.sunrise, 2024, 12, day) == nil)
            #expect(tromso.time(.sunset, 2024, 12, day) == nil)
        }
        // The date: "først 15. januar kan solen igjen sees fra Tromsø-området" (astrophysicist Knut Jørgen Røed
        // Ødegaard, quoted by Vigga, 21 December 2017); NTB, January 2019, gives the same date. No published
        // clock time for it was found, so only the day is checked.
        let first = try #require(tromso.next(.sunrise, after: tromso.clock(2024, 12, 21, 12, 0)))
        #expect(tromso.day(of: first) == DateComponents(year: 2025, month: 1, day: 15))
        #expect(tromso.time(.sunrise, 2025, 1, 14) == nil)
        let sunset = try #require(tromso.time(.sunset, 2025, 1, 15))
        #expect(sunset > first && sunset.timeIntervalSince(first) < 2 * 3600)  // a short day around noon
    }

    @Test("Tromsø: midnight sun in late June")
    func tromsoMidnightSun() {
        // The USNO figures quoted below keep the sun up at 69.5°N from 18 May to 25 July; Tromsø is further north.
        for year in [2024, 2025] {
            #expect(tromso.time(.sunrise, year, 6, 21) == nil)
            #expect(tromso.time(.sunset, year, 6, 21) == nil)
        }
    }

    @Test("Tromsø in spring and around the midnight sun, against the USNO and Almanakk for Norge")
    func tromsoSpring() throws {
        // US Naval Observatory "Sun and Moon Data for One Day", Tromso (E19.0, N69.5), Universal Time + 1h, as quoted
        // on answers.com ("How many hours of daylight in north Norway in April"): 1 April 2014 sunrise 04:50,
        // sunset 18:49; 30 April sunrise 02:29, sunset 20:58; 17 May sunset 23:06; 18 May sunrise 00:13, and the
        // next sunset 69 days later, 25 July at 23:20.
        let usno = Place(latitude: 69.5, longitude: 19.0, zone: "Europe/Oslo")
        let ut1 = TimeZone(secondsFromGMT: 3600)!
        expectClose(usno.time(.sunrise, 2014, 4, 1), moment(ut1, 2014, 4, 1, 4, 50))
        expectClose(usno.time(.sunset, 2014, 4, 1), moment(ut1, 2014, 4, 1, 18, 49))
        expectClose(usno.time(.sunrise, 2014, 4, 30), moment(ut1, 2014, 4, 30, 2, 29))
        expectClose(usno.time(.sunset, 2014, 4, 30), moment(ut1, 2014, 4, 30, 20, 58))
        let lastSunset = try #require(usno.next(.sunset, after: usno.clock(2014, 5, 17, 12, 0)))
        expectClose(lastSunset, moment(ut1, 2014, 5, 17, 23, 6))
        // 23:06 UT+1 is 00:06 on the Norwegian clock: that sunset belongs to the local day of 18 May.
        #expect(usno.day(of: lastSunset) == DateComponents(year: 2014, month: 5, day: 18))
        expectClose(usno.next(.sunrise, after: lastSunset), moment(ut1, 2014, 5, 18, 0, 13))
        expectClose(usno.next(.sunset, after: lastSunset), moment(ut1, 2014, 7, 25, 23, 20))
        // Almanakk for Norge (University of Oslo), its Tromsø calendar as quoted in "Soloppgang og solnedgang i
        // Nord-Norge 2021": 6 May 2020, up 02:50, down 22:37 (CEST).
        expectClose(tromso.time(.sunrise, 2020, 5, 6), tromso.clock(2020, 5, 6, 2, 50))
        expectClose(tromso.time(.sunset, 2020, 5, 6), tromso.clock(2020, 5, 6, 22, 37))
    }

    // MARK: - next

    @Test("next is strictly after the given moment")
    func nextIsStrictlyAfter() throws {
        let sunset = try #require(amsterdam.time(.sunset, 2021, 10, 8))  // 19:01 CEST, timeanddate.com as above
        let following = try #require(amsterdam.next(.sunset, after: sunset))
        expectClose(following, amsterdam.clock(2021, 10, 9, 18, 58))
        #expect(amsterdam.next(.sunset, after: sunset.addingTimeInterval(-1)) == sunset)
    }

    @Test("next with a negative offset: 30 minutes before sunset, two hours and six hours before sunrise")
    func nextBefore() {
        // 30 minutes before Amsterdam's 19:01 and 18:58 sunsets of 8 and 9 October 2021 (timeanddate.com as above).
        expectClose(
            amsterdam.next(.sunset, offset: -1800, after: amsterdam.clock(2021, 10, 8, 12, 0)),
            amsterdam.clock(2021, 10, 8, 18, 31))
        expectClose(
            amsterdam.next(.sunset, offset: -1800, after: amsterdam.clock(2021, 10, 8, 18, 40)),
            amsterdam.clock(2021, 10, 9, 18, 28))
        // The AIP point's 21 June 2019 sunrise is 03:20 UTC, 05:20 CEST (AIP GEN 2.7 as above).
        expectClose(
            aipPoint.next(.sunrise, offset: -7200, after: aipPoint.clock(2019, 6, 21, 0, 0)),
            aipPoint.clock(2019, 6, 21, 3, 20))
        // Six hours before it is 23:20 the evening before: the moment lands on the previous calendar day.
        expectClose(
            aipPoint.next(.sunrise, offset: -6 * 3600, after: aipPoint.clock(2019, 6, 20, 22, 0)),
            aipPoint.clock(2019, 6, 20, 23, 20))
    }

    @Test("next with a positive offset that crosses midnight: three hours after sunset")
    func nextAfterMidnight() {
        // The AIP point's 21 June 2019 sunset is 20:04 UTC, 22:04 CEST; three hours later is 01:04 on the 22nd,
        // which must be found from just after midnight, before the 22nd's own sunset is due.
        expectClose(
            aipPoint.next(.sunset, offset: 3 * 3600, after: aipPoint.clock(2019, 6, 22, 0, 30)),
            aipPoint.clock(2019, 6, 22, 1, 4))
        // Once that has passed, the next is the one after the 22nd's sunset: early on the 23rd.
        let next = aipPoint.next(.sunset, offset: 3 * 3600, after: aipPoint.clock(2019, 6, 22, 1, 10))
        #expect(next.map { aipPoint.day(of: $0) } == DateComponents(year: 2019, month: 6, day: 23))
        // Honolulu: an hour after the 6:01 p.m. sunset of 1 January (Bishop Museum as above).
        expectClose(
            honolulu.next(.sunset, offset: 3600, after: honolulu.clock(2025, 1, 1, 12, 0)),
            honolulu.clock(2025, 1, 1, 19, 1))
    }

    @Test("at the poles next finds nothing, and a day that does not exist has no sunrise")
    func nothing() {
        for latitude in [90.0, -90.0] {
            let pole = Place(latitude: latitude, longitude: 0, zone: "UTC")
            #expect(pole.next(.sunrise, after: pole.clock(2024, 1, 1, 0, 0)) == nil)
            #expect(pole.next(.sunset, offset: -1800, after: pole.clock(2024, 1, 1, 0, 0)) == nil)
        }
        #expect(amsterdam.time(.sunrise, 2023, 2, 29) == nil)
        #expect(amsterdam.time(.sunset, 2024, 4, 31) == nil)
    }
}

// MARK: - Places and clocks

extension SunTests {
    struct Place {
        var latitude: Double
        var longitude: Double
        var zone: TimeZone

        init(latitude: Double, longitude: Double, zone: String) {
            self.latitude = latitude
            self.longitude = longitude
            self.zone = TimeZone(identifier: zone)!
        }

        func time(_ event: SunEvent, _ year: Int, _ month: Int, _ day: Int) -> Date? {
            Sun.time(of: event, year: year, month: month, day: day, latitude: latitude, longitude: longitude, timeZone: zone)
        }

        func next(_ event: SunEvent, offset: TimeInterval = 0, after date: Date) -> Date? {
            Sun.next(event, offset: offset, after: date, latitude: latitude, longitude: longitude, timeZone: zone)
        }

        /// The moment the local clock shows hour:minute on that day.
        func clock(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Date {
            SunTests.moment(zone, year, month, day, hour, minute)
        }

        func day(of date: Date) -> DateComponents {
            calendar.dateComponents([.year, .month, .day], from: date)
        }

        func minutesOfDay(_ date: Date) -> Int {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            return parts.hour! * 60 + parts.minute!
        }

        private var calendar: Calendar {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            return calendar
        }
    }

    static func moment(_ zone: TimeZone, _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    func moment(_ zone: TimeZone, _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Date {
        Self.moment(zone, year, month, day, hour, minute)
    }

    func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Date {
        moment(TimeZone(identifier: "UTC")!, year, month, day, hour, minute)
    }

    func utcDay(of date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.component(.day, from: date)
    }

    /// Within two minutes of a published time.
    func expectClose(_ actual: Date?, _ expected: Date, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let actual else {
            Issue.record("no event where the table has \(expected)", sourceLocation: sourceLocation)
            return
        }
        let seconds = actual.timeIntervalSince(expected)
        #expect(abs(seconds) <= 120, "off by \(Int(seconds)) s: \(actual) against \(expected)", sourceLocation: sourceLocation)
    }
}
