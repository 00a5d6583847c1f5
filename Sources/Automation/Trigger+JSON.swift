public import Foundation
import HomeModel
public import JSON

extension Trigger {
    /// The keys of a trigger's definition: what fires it and what must hold.
    public static let definitionKeys = ["timer", "events", "conditions", "execute_once"]

    /// The definition as JSON, as requests carry it and exports write it.
    public var definitionJSON: [String: JSONValue] {
        var fields: [String: JSONValue] = ["execute_once": .bool(executeOnce)]
        switch kind {
        case .timer(let schedule): fields["timer"] = schedule.json
        case .events(let events): fields["events"] = .array(events.map(\.json))
        }
        if let conditions { fields["conditions"] = conditions.json }
        return fields
    }

    /// The whole trigger: its definition with id, name, home, enabled and action sets.
    public var json: [String: JSONValue] {
        var fields = definitionJSON
        fields["id"] = .string(id)
        fields["name"] = .string(name)
        fields["home"] = .string(home)
        fields["enabled"] = .bool(enabled)
        fields["action_sets"] = .array(actionSets.map { .string($0) })
        return fields
    }

    /// What fires a trigger: exactly one of `timer` and `events`.
    public static func kind(from fields: [String: JSONValue], defaultTimeZone: TimeZone) throws(AutomationError) -> Kind {
        switch (fields["timer"], fields["events"]) {
        case (let timer?, nil): return .timer(try TimerSchedule(json: timer, at: "timer", defaultTimeZone: defaultTimeZone))
        case (nil, let events?):
            let items = try Read.array(events, at: "events")
            guard !items.isEmpty else { throw AutomationError(at: "events", "name at least one event") }
            var decoded: [Event] = []
            for (i, item) in items.enumerated() { decoded.append(try Event(json: item, at: "events[\(i)]")) }
            return .events(decoded)
        case (nil, nil): throw AutomationError("a trigger needs either \"timer\" or \"events\"")
        case (_?, _?): throw AutomationError("a trigger has either \"timer\" or \"events\", not both")
        }
    }

    public static func conditions(from json: JSONValue?) throws(AutomationError) -> Condition? {
        guard let json, json != .null else { return nil }
        return try Condition(json: json, at: "conditions")
    }
}

extension TimerSchedule {
    init(json: JSONValue, at path: String, defaultTimeZone: TimeZone) throws(AutomationError) {
        let fields = try Read.object(json, at: path, allowed: ["fire_date", "time_zone", "recurrence"])
        timeZone = defaultTimeZone
        followsHouseZone = fields["time_zone"] == nil
        if let name = fields["time_zone"] {
            let text = try Read.string(name, at: Read.join(path, "time_zone"))
            guard let zone = TimeZone(identifier: text) else {
                throw AutomationError(
                    at: Read.join(path, "time_zone"), "unknown time zone '\(text)' (expected a name like Europe/Amsterdam)")
            }
            timeZone = zone
        }
        fireDate = nil
        if let date = fields["fire_date"] {
            let text = try Read.string(date, at: Read.join(path, "fire_date"))
            guard let (local, offset) = LocalTime.parse(text) else {
                throw AutomationError(
                    at: Read.join(path, "fire_date"),
                    "expected a date and time like 2026-11-23T22:30 (local to time_zone) or with Z or +01:00")
            }
            if let offset {
                // An instant (Z or +01:00) is pinned: it does not move when the house's zone changes.
                let moment = Date(timeIntervalSince1970: Double(local.day * 86_400 + local.seconds - offset))
                fireDate = LocalTime(moment, in: timeZone)
                if followsHouseZone, fields["time_zone"] == nil { followsHouseZone = false }
            } else {
                fireDate = local
            }
        }
        recurrence = try fields["recurrence"].map { r throws(AutomationError) in try Self.recurrence(r, at: Read.join(path, "recurrence")) }
        switch recurrence {
        case nil, .every:
            if fireDate == nil {
                throw AutomationError(
                    at: Read.join(path, "fire_date"), "missing: a one-off or repeating-interval timer starts at its fire date")
            }
        case .calendar: break
        }
    }

    /// `{"every": 15, "unit": "minutes"}` or `{"at": "22:30", "weekdays": ["mon", ...]}`.
    static func recurrence(_ json: JSONValue, at path: String) throws(AutomationError) -> Recurrence {
        let fields = try Read.object(json, at: path, allowed: ["every", "unit", "at", "weekdays"])
        if let every = fields["every"] {
            guard fields["at"] == nil, fields["weekdays"] == nil else {
                throw AutomationError(at: path, "either every + unit, or at (+ weekdays)")
            }
            guard let count = every.intValue, (1...10_000).contains(count) else {
                throw AutomationError(at: Read.join(path, "every"), "expected a whole number from 1 to 10000")
            }
            let unitName = try Read.string(fields["unit"], at: Read.join(path, "unit"))
            guard let unit = Unit(rawValue: unitName) else {
                throw AutomationError(
                    at: Read.join(path, "unit"),
                    "expected minutes, hours, days or weeks\(didYouMean(unitName, Unit.allCases.map(\.rawValue)))")
            }
            return .every(count, unit)
        }
        let at = try Read.string(fields["at"], at: Read.join(path, "at"))
        guard case .clock(let hour, let minute)? = TimeOfDay(at) else {
            throw AutomationError(at: Read.join(path, "at"), "expected a clock time like 22:30")
        }
        let days =
            try fields["weekdays"].map { d throws(AutomationError) in try Read.weekdays(d, at: Read.join(path, "weekdays")) } ?? Set(1...7)
        return .calendar(hour: hour, minute: minute, weekdays: days)
    }

    var json: JSONValue {
        var fields: [String: JSONValue] = followsHouseZone ? [:] : ["time_zone": .string(timeZone.identifier)]
        if let fireDate { fields["fire_date"] = .string(Write.localTime(fireDate)) }
        switch recurrence {
        case nil: break
        case .every(let count, let unit): fields["recurrence"] = ["every": .integer(count), "unit": .string(unit.rawValue)]
        case .calendar(let hour, let minute, let days):
            fields["recurrence"] = [
                "at": .string(TimeOfDay.clock(hour: hour, minute: minute).description), "weekdays": Write.weekdays(days),
            ]
        }
        return .object(fields)
    }
}

extension Trigger.Event {
    init(json: JSONValue, at path: String) throws(AutomationError) {
        let fields = try Read.object(
            json, at: path, allowed: ["characteristic", "accessory", "service", "value", "range", "for", "sun", "offset"])
        if let sun = fields["sun"] {
            let name = try Read.string(sun, at: Read.join(path, "sun"))
            guard let event = SunEvent(rawValue: name) else {
                throw AutomationError(at: Read.join(path, "sun"), "expected sunrise or sunset")
            }
            for key in ["characteristic", "value", "range", "for"] where fields[key] != nil {
                throw AutomationError(at: Read.join(path, key), "a sun event has no \(key)")
            }
            let offset = try fields["offset"].map { o throws(AutomationError) in try Read.duration(o, at: Read.join(path, "offset")) } ?? 0
            guard abs(offset) < 86_400 else { throw AutomationError(at: Read.join(path, "offset"), "keep the offset within a day") }
            self = .sun(event, offset: offset)
            return
        }
        guard fields["offset"] == nil else { throw AutomationError(at: Read.join(path, "offset"), "only a sun event has an offset") }
        let characteristic = try Read.characteristicPath(fields, at: path)
        let match: ValueMatch
        switch (fields["value"], fields["range"]) {
        case (let value?, nil): match = .value(try Read.value(value, at: Read.join(path, "value")))
        case (nil, let range?): match = try Self.range(range, at: Read.join(path, "range"))
        case (nil, nil): match = .anyChange
        case (_?, _?): throw AutomationError(at: path, "either value or range, not both")
        }
        var held: TimeInterval?
        if let duration = fields["for"] {
            guard match != .anyChange else { throw AutomationError(at: Read.join(path, "for"), "\"for\" needs a value or a range to hold") }
            held = try Read.duration(duration, at: Read.join(path, "for"))
            guard let h = held, h > 0, h <= 7 * 86_400 else {
                throw AutomationError(at: Read.join(path, "for"), "expected a duration from 1s to 7d")
            }
        }
        self = .characteristic(characteristic, match, held: held)
    }

    static func range(_ json: JSONValue, at path: String) throws(AutomationError) -> ValueMatch {
        let fields = try Read.object(json, at: path, allowed: ["min", "max"])
        let min = try fields["min"].map { m throws(AutomationError) in try Read.number(m, at: Read.join(path, "min")) }
        let max = try fields["max"].map { m throws(AutomationError) in try Read.number(m, at: Read.join(path, "max")) }
        guard min != nil || max != nil else { throw AutomationError(at: path, "name min, max or both") }
        if let min, let max, min > max { throw AutomationError(at: path, "min \(min) is above max \(max)") }
        return .range(min: min, max: max)
    }

    var json: JSONValue {
        switch self {
        case .sun(let event, let offset):
            return offset == 0
                ? ["sun": .string(event.rawValue)] : ["sun": .string(event.rawValue), "offset": .string(DurationText.format(offset))]
        case .characteristic(let path, let match, let held):
            var fields: [String: JSONValue] = ["characteristic": .string(path.description)]
            switch match {
            case .anyChange: break
            case .value(let value): fields["value"] = value.json
            case .range(let min, let max):
                var range: [String: JSONValue] = [:]
                if let min { range["min"] = .double(min) }
                if let max { range["max"] = .double(max) }
                fields["range"] = .object(range)
            }
            if let held { fields["for"] = .string(DurationText.format(held)) }
            return .object(fields)
        }
    }
}

extension Condition {
    init(json: JSONValue, at path: String) throws(AutomationError) {
        guard case .object(let fields) = json else { throw AutomationError(at: path, "expected an object, got \(json.kindDescription)") }
        let shapes = ["all", "any", "not", "time", "weekdays", "characteristic"]
        guard let shape = shapes.first(where: { fields[$0] != nil }) else {
            throw AutomationError(
                at: path, "expected one of \(shapes.joined(separator: ", ")) (\"characteristic\" with \"op\" and \"value\")")
        }
        switch shape {
        case "all", "any":
            _ = try Read.object(json, at: path, allowed: [shape])
            var items: [Condition] = []
            for (i, item) in try Read.array(fields[shape], at: Read.join(path, shape)).enumerated() {
                items.append(try Condition(json: item, at: "\(Read.join(path, shape))[\(i)]"))
            }
            guard !items.isEmpty else { throw AutomationError(at: Read.join(path, shape), "name at least one condition") }
            self = shape == "all" ? .all(items) : .any(items)
        case "not":
            _ = try Read.object(json, at: path, allowed: ["not"])
            self = .not(try Condition(json: fields["not"]!, at: Read.join(path, "not")))
        case "time":
            _ = try Read.object(json, at: path, allowed: ["time"])
            let window = try Read.object(fields["time"]!, at: Read.join(path, "time"), allowed: ["after", "before"])
            func point(_ key: String) throws(AutomationError) -> TimeOfDay? {
                guard let value = window[key] else { return nil }
                let text = try Read.string(value, at: Read.join(path, "time.\(key)"))
                guard let time = TimeOfDay(text) else {
                    throw AutomationError(
                        at: Read.join(path, "time.\(key)"),
                        "expected a clock time like 22:30, or sunrise/sunset with an offset within a day like sunset-30m")
                }
                return time
            }
            let after = try point("after")
            let before = try point("before")
            guard after != nil || before != nil else { throw AutomationError(at: Read.join(path, "time"), "name after, before or both") }
            self = .time(after: after, before: before)
        case "weekdays":
            _ = try Read.object(json, at: path, allowed: ["weekdays"])
            self = .weekdays(try Read.weekdays(fields["weekdays"], at: Read.join(path, "weekdays")))
        default:
            _ = try Read.object(json, at: path, allowed: ["characteristic", "accessory", "service", "op", "value"])
            let characteristic = try Read.characteristicPath(fields, at: path)
            let op = try Read.string(fields["op"], at: Read.join(path, "op"))
            guard let comparison = Comparison(rawValue: op) else {
                throw AutomationError(
                    at: Read.join(path, "op"), "expected one of \(Comparison.allCases.map(\.rawValue).joined(separator: " "))")
            }
            let value = try Read.value(fields["value"], at: Read.join(path, "value"))
            if value.doubleValue == nil, comparison != .equal, comparison != .notEqual {
                throw AutomationError(at: Read.join(path, "op"), "\(op) compares numbers; \(value) is not one")
            }
            self = .compare(characteristic, comparison, value)
        }
    }

    var json: JSONValue {
        switch self {
        case .compare(let path, let comparison, let value):
            return ["characteristic": .string(path.description), "op": .string(comparison.rawValue), "value": value.json]
        case .time(let after, let before):
            var window: [String: JSONValue] = [:]
            if let after { window["after"] = .string(after.description) }
            if let before { window["before"] = .string(before.description) }
            return ["time": .object(window)]
        case .weekdays(let days): return ["weekdays": Write.weekdays(days)]
        case .all(let items): return ["all": .array(items.map(\.json))]
        case .any(let items): return ["any": .array(items.map(\.json))]
        case .not(let inner): return ["not": inner.json]
        }
    }
}
