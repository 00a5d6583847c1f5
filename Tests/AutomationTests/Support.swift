import Automation
import Foundation
import HomeModel
import JSON

let amsterdam = TimeZone(identifier: "Europe/Amsterdam")!
let newYork = TimeZone(identifier: "America/New_York")!
let utc = TimeZone(identifier: "UTC")!

/// A moment from a wall time in `zone`: `at("2026-03-29T02:30", amsterdam)`.
func at(_ text: String, _ zone: TimeZone) -> Date {
    let parts = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0)! }
    return LocalTime(
        year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts.count > 5 ? parts[5] : 0
    )
    .moment(in: zone)
}

/// `2026-03-29 03:00 +02:00`: how a moment reads on the wall in `zone`, with its offset.
func wall(_ date: Date, _ zone: TimeZone) -> String {
    let local = LocalTime(date, in: zone)
    let (y, m, d) = local.date
    let offset = zone.secondsFromGMT(for: date)
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let sign = offset < 0 ? "-" : "+"
    return
        "\(y)-\(two(m))-\(two(d)) \(two(local.seconds / 3600)):\(two(local.seconds / 60 % 60)) \(sign)\(two(abs(offset) / 3600)):\(two(abs(offset) / 60 % 60))"
}

func schedule(_ json: JSONValue, zone: TimeZone) throws -> TimerSchedule {
    guard case .timer(let schedule) = try Trigger.kind(from: ["timer": json], defaultTimeZone: zone) else { fatalError() }
    return schedule
}

/// The first `count` fires after `start`.
func fires(_ schedule: TimerSchedule, after start: Date, count: Int) -> [Date] {
    var dates: [Date] = []
    var cursor = start
    while dates.count < count, let next = schedule.next(after: cursor) {
        dates.append(next)
        cursor = next
    }
    return dates
}

func path(_ text: String) -> CharacteristicPath { CharacteristicPath(text)! }
