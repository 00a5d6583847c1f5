import Foundation
import HomeModel
import JSON

/// Small readers shared by the action set and trigger decoders; each error names where it was.
enum Read {
    static func object(_ json: JSONValue, at path: String, allowed: [String]) throws(AutomationError) -> [String: JSONValue] {
        guard case .object(let fields) = json else { throw AutomationError(at: path, "expected an object, got \(json.kindDescription)") }
        let keys = ObjectKeys(sorted: fields, allowed: allowed)
        if let first = keys.unknown.first {
            throw AutomationError(
                at: join(path, first.key), "unknown key\(first.suggestion); expected one of \(allowed.joined(separator: ", "))")
        }
        return fields
    }

    static func string(_ json: JSONValue?, at path: String) throws(AutomationError) -> String {
        guard let json else { throw AutomationError(at: path, "missing") }
        guard case .string(let text) = json else { throw AutomationError(at: path, "expected a string, got \(json.kindDescription)") }
        return text
    }

    static func bool(_ json: JSONValue?, at path: String) throws(AutomationError) -> Bool {
        guard case .bool(let value)? = json else { throw AutomationError(at: path, "expected true or false") }
        return value
    }

    static func array(_ json: JSONValue?, at path: String) throws(AutomationError) -> [JSONValue] {
        guard let json else { throw AutomationError(at: path, "missing") }
        guard case .array(let items) = json else { throw AutomationError(at: path, "expected a list, got \(json.kindDescription)") }
        return items
    }

    static func value(_ json: JSONValue?, at path: String) throws(AutomationError) -> CharacteristicValue {
        guard let json else { throw AutomationError(at: path, "missing") }
        guard let value = CharacteristicValue(json: json) else {
            throw AutomationError(at: path, "expected a value (true, 80, 21.5 or \"text\"), got \(json.kindDescription)")
        }
        return value
    }

    static func number(_ json: JSONValue?, at path: String) throws(AutomationError) -> Double {
        guard let number = json?.doubleValue, number.isFinite else { throw AutomationError(at: path, "expected a number") }
        return number
    }

    /// `"10m"`, `"1h30m"`, `"-30m"` or a number of seconds: whole seconds, since that is how a
    /// duration is stored and read back; `0.4s` is refused rather than stored as `0s` (or `1s`).
    static func duration(_ json: JSONValue?, at path: String) throws(AutomationError) -> TimeInterval {
        var seconds: TimeInterval?
        if let number = json?.doubleValue, number.isFinite { seconds = number }
        if case .string(let text)? = json { seconds = DurationText.parse(text) }
        guard let seconds else { throw AutomationError(at: path, "expected a duration like 90s, 10m, 1h30m or -30m") }
        guard seconds == seconds.rounded() else {
            throw AutomationError(
                at: path,
                "\(json?.serialized() ?? "") is not a whole number of seconds; durations are kept in whole seconds (like 1s, 90s, 10m)")
        }
        return seconds
    }

    /// `"hall/lightbulb/on"`, or the parts as `accessory`, `service` and `characteristic` next to it.
    static func characteristicPath(_ fields: [String: JSONValue], at path: String) throws(AutomationError) -> CharacteristicPath {
        var found: CharacteristicPath?
        if case .string(let text)? = fields["characteristic"], let parsed = CharacteristicPath(text) {
            found = parsed
        } else if case .string(let a)? = fields["accessory"], case .string(let s)? = fields["service"],
            case .string(let c)? = fields["characteristic"],
            !a.isEmpty, !s.isEmpty, !c.isEmpty
        {
            found = CharacteristicPath(accessory: a, service: s, characteristic: c)
        }
        guard let found else {
            throw AutomationError(
                at: join(path, "characteristic"), "expected \"accessory/service/characteristic\" (like \"hall_light/lightbulb/on\")")
        }
        guard CharacteristicType.named(found.characteristic) != nil else {
            throw AutomationError(
                at: join(path, "characteristic"),
                "'\(found.characteristic)' is not a HAP characteristic\(didYouMean(found.characteristic, CharacteristicType.all.map(\.name)))"
            )
        }
        return found
    }

    static func weekdays(_ json: JSONValue?, at path: String) throws(AutomationError) -> Set<Int> {
        let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        if case .string(let word)? = json {
            switch word {
            case "weekdays": return [1, 2, 3, 4, 5]
            case "weekends": return [6, 7]
            case "daily": return Set(1...7)
            default: break
            }
        }
        var days: Set<Int> = []
        for (i, item) in try array(json, at: path).enumerated() {
            let full = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
            guard case .string(let name) = item,
                let index = names.firstIndex(of: name.lowercased()) ?? full.firstIndex(of: name.lowercased())
            else {
                throw AutomationError(at: "\(path)[\(i)]", "expected a day: \(names.joined(separator: ", "))")
            }
            days.insert(index + 1)
        }
        guard !days.isEmpty else { throw AutomationError(at: path, "name at least one day") }
        return days
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}

enum Write {
    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    static func weekdays(_ days: Set<Int>) -> JSONValue {
        .array(days.sorted().map { .string(dayNames[$0 - 1]) })
    }

    /// `2026-11-23T22:30:00`: a wall time, read in the schedule's time zone.
    static func localTime(_ time: LocalTime) -> String {
        let (y, m, d) = time.date
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = y >= 1000 ? "\(y)" : String(repeating: "0", count: 4 - String(y).count) + "\(y)"
        return "\(year)-\(two(m))-\(two(d))T\(two(time.seconds / 3600)):\(two(time.seconds / 60 % 60)):\(two(time.seconds % 60))"
    }

    /// `2026-11-23T21:30:00.000Z`: UTC with milliseconds. The one formatter of instants: events,
    /// listings and exports all write them so.
    static func instant(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        let millis = min(999, Int(((seconds - Double(whole)) * 1000).rounded(.down)))
        var parts = tm()
        gmtime_r(&whole, &parts)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else {
            func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
            let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
            return
                "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
        }
        // Written digit by digit: every event and log line carries one, and interpolation costs a
        // dozen small strings each time.
        return String(unsafeUninitializedCapacity: 24) { text in
            func put(_ value: Int, _ digits: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            put(Int(parts.tm_mon) + 1, 2, at: 5)
            put(Int(parts.tm_mday), 2, at: 8)
            put(Int(parts.tm_hour), 2, at: 11)
            put(Int(parts.tm_min), 2, at: 14)
            put(Int(parts.tm_sec), 2, at: 17)
            put(millis, 3, at: 20)
            (text[4], text[7], text[10], text[13], text[16], text[19], text[23]) = (
                UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"), UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "."),
                UInt8(ascii: "Z")
            )
            return 24
        }
    }
}

extension LocalTime {
    /// `2026-11-23T22:30:00`: the wall time as requests, exports and the database write it.
    public var text: String { Write.localTime(self) }

    /// `2026-11-23T22:30`, with optional seconds; an offset or `Z` (returned separately) pins the moment.
    public static func parse(_ text: String) -> (LocalTime, offset: Int?)? {
        var body = Substring(text)
        var offset: Int?
        if body.hasSuffix("Z") {
            offset = 0
            body = body.dropLast()
        } else if body.count > 6, let signIndex = body.index(body.endIndex, offsetBy: -6, limitedBy: body.startIndex),
            body[signIndex] == "+" || body[signIndex] == "-", body[body.index(signIndex, offsetBy: 3)] == ":",
            let h = Int(body[body.index(after: signIndex)..<body.index(signIndex, offsetBy: 3)]),
            let m = Int(body[body.index(signIndex, offsetBy: 4)...])
        {
            offset = (h * 3600 + m * 60) * (body[signIndex] == "-" ? -1 : 1)
            body = body[..<signIndex]
        }
        let halves = body.split(separator: "T")
        guard halves.count == 2 else { return nil }
        let date = halves[0].split(separator: "-")
        var time = halves[1]
        if let dot = time.firstIndex(of: ".") { time = time[..<dot] }  // fractions of a second are dropped
        let clock = time.split(separator: ":")
        guard date.count == 3, date[0].count == 4, (2...3).contains(clock.count),
            let y = Int(date[0]), let mo = Int(date[1]), let d = Int(date[2]), let h = Int(clock[0]), let mi = Int(clock[1]),
            (1...12).contains(mo), (1...31).contains(d), (0...23).contains(h), (0...59).contains(mi)
        else { return nil }
        let s = clock.count == 3 ? Int(clock[2]) : 0
        guard let s, (0...59).contains(s) else { return nil }
        let local = LocalTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
        guard local.date == (y, mo, d) else { return nil }  // 2026-02-30
        return (local, offset)
    }
}
