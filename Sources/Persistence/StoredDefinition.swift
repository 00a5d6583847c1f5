import Automation
import Foundation
import HomeModel
import JSON

/// How the database writes a trigger's definition and an action set's scene recall, and reads
/// them back: its own codec, not the request parser. A request is checked against what a user may
/// ask for today (counts, ranges, unknown keys, a time zone to fill in); a stored definition was
/// checked when it was accepted and is read back as it was written, so tightening what requests
/// accept never makes a stored trigger unreadable, and a request format that changes does not
/// change what is on disk.
///
/// The stored form (format 1, the `definition` column) is JSON with the keys the request form had
/// when the database arrived; `StoredDefinitionTests` pins it, so a change to either side shows.
enum StoredDefinition {
    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ path: String, _ message: String) { description = "\(path): \(message)" }
    }

    // MARK: Triggers

    static func encode(_ trigger: Trigger) -> String {
        var fields: [String: JSONValue] = ["execute_once": .bool(trigger.executeOnce)]
        switch trigger.kind {
        case .timer(let schedule): fields["timer"] = encode(schedule)
        case .events(let events): fields["events"] = .array(events.map(encode))
        }
        if let conditions = trigger.conditions { fields["conditions"] = encode(conditions) }
        return JSONValue.object(fields).serialized()
    }

    /// What fires the trigger, what must hold, and whether it runs once. A timer stored without a
    /// zone follows the house's; it is read in UTC until the home sets the house's zone on it.
    static func decodeTrigger(_ text: String) throws(Problem) -> (kind: Trigger.Kind, conditions: Condition?, executeOnce: Bool) {
        let root = try object(try parse(text), at: "definition")
        let kind: Trigger.Kind
        switch (root["timer"], root["events"]) {
        case (let timer?, nil): kind = .timer(try schedule(timer, at: "timer"))
        case (nil, let events?):
            kind = .events(
                try array(events, at: "events").enumerated().map { (i, item) throws(Problem) in try event(item, at: "events[\(i)]") })
        default: throw Problem("definition", "expected a timer or events")
        }
        let conditions = try root["conditions"].flatMap { c throws(Problem) in c == .null ? nil : try condition(c, at: "conditions") }
        return (kind, conditions, root["execute_once"]?.boolValue ?? false)
    }

    private static func encode(_ schedule: TimerSchedule) -> JSONValue {
        var fields: [String: JSONValue] = schedule.followsHouseZone ? [:] : ["time_zone": .string(schedule.timeZone.identifier)]
        if let fireDate = schedule.fireDate { fields["fire_date"] = .string(fireDate.text) }
        switch schedule.recurrence {
        case nil: break
        case .every(let count, let unit): fields["recurrence"] = ["every": .integer(count), "unit": .string(unit.rawValue)]
        case .calendar(let hour, let minute, let days):
            fields["recurrence"] = ["at": .string(TimeOfDay.clock(hour: hour, minute: minute).description), "weekdays": weekdays(days)]
        }
        return .object(fields)
    }

    private static func schedule(_ json: JSONValue, at path: String) throws(Problem) -> TimerSchedule {
        let fields = try object(json, at: path)
        var zone = TimeZone(identifier: "UTC")!
        if let name = fields["time_zone"] {
            let identifier = try string(name, at: "\(path).time_zone")
            guard let named = TimeZone(identifier: identifier) else {
                throw Problem("\(path).time_zone", "unknown time zone '\(identifier)'")
            }
            zone = named
        }
        var fireDate: LocalTime?
        if let date = fields["fire_date"] {
            let text = try string(date, at: "\(path).fire_date")
            guard let (local, offset) = LocalTime.parse(text), offset == nil else {
                throw Problem("\(path).fire_date", "not a wall time: \(text)")
            }
            fireDate = local
        }
        var recurrence: TimerSchedule.Recurrence?
        if let stored = fields["recurrence"] {
            let r = try object(stored, at: "\(path).recurrence")
            if let every = r["every"] {
                guard let count = every.intValue,
                    let unit = TimerSchedule.Unit(rawValue: try string(r["unit"], at: "\(path).recurrence.unit"))
                else { throw Problem("\(path).recurrence", "not an interval: \(stored.serialized())") }
                recurrence = .every(count, unit)
            } else {
                guard case .clock(let hour, let minute)? = TimeOfDay(try string(r["at"], at: "\(path).recurrence.at")) else {
                    throw Problem("\(path).recurrence.at", "not a clock time")
                }
                let days = try r["weekdays"].map { d throws(Problem) in try weekdays(d, at: "\(path).recurrence.weekdays") } ?? Set(1...7)
                recurrence = .calendar(hour: hour, minute: minute, weekdays: days)
            }
        }
        return TimerSchedule(fireDate: fireDate, timeZone: zone, recurrence: recurrence, followsHouseZone: fields["time_zone"] == nil)
    }

    private static func encode(_ event: Trigger.Event) -> JSONValue {
        switch event {
        case .sun(let sun, let offset):
            return offset == 0
                ? ["sun": .string(sun.rawValue)] : ["sun": .string(sun.rawValue), "offset": .string(DurationText.format(offset))]
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

    private static func event(_ json: JSONValue, at path: String) throws(Problem) -> Trigger.Event {
        let fields = try object(json, at: path)
        if let sun = fields["sun"] {
            guard let event = SunEvent(rawValue: try string(sun, at: "\(path).sun")) else {
                throw Problem("\(path).sun", "not sunrise or sunset")
            }
            return .sun(event, offset: try fields["offset"].map { o throws(Problem) in try duration(o, at: "\(path).offset") } ?? 0)
        }
        let characteristic = try self.path(fields["characteristic"], at: "\(path).characteristic")
        var match = ValueMatch.anyChange
        if let value = fields["value"] {
            match = .value(try self.value(value, at: "\(path).value"))
        } else if let range = fields["range"] {
            let bounds = try object(range, at: "\(path).range")
            match = .range(min: bounds["min"]?.doubleValue, max: bounds["max"]?.doubleValue)
        }
        let held = try fields["for"].map { h throws(Problem) in try duration(h, at: "\(path).for") }
        return .characteristic(characteristic, match, held: held)
    }

    private static func encode(_ condition: Condition) -> JSONValue {
        switch condition {
        case .compare(let path, let comparison, let value):
            return ["characteristic": .string(path.description), "op": .string(comparison.rawValue), "value": value.json]
        case .time(let after, let before):
            var window: [String: JSONValue] = [:]
            if let after { window["after"] = .string(after.description) }
            if let before { window["before"] = .string(before.description) }
            return ["time": .object(window)]
        case .weekdays(let days): return ["weekdays": weekdays(days)]
        case .all(let items): return ["all": .array(items.map(encode))]
        case .any(let items): return ["any": .array(items.map(encode))]
        case .not(let inner): return ["not": encode(inner)]
        }
    }

    private static func condition(_ json: JSONValue, at path: String) throws(Problem) -> Condition {
        let fields = try object(json, at: path)
        func items(_ key: String) throws(Problem) -> [Condition] {
            try array(fields[key], at: "\(path).\(key)").enumerated().map { (i, item) throws(Problem) in
                try condition(item, at: "\(path).\(key)[\(i)]")
            }
        }
        if fields["all"] != nil { return .all(try items("all")) }
        if fields["any"] != nil { return .any(try items("any")) }
        if let inner = fields["not"] { return .not(try condition(inner, at: "\(path).not")) }
        if let window = fields["time"] {
            let ends = try object(window, at: "\(path).time")
            func end(_ key: String) throws(Problem) -> TimeOfDay? {
                guard let stored = ends[key] else { return nil }
                let text = try string(stored, at: "\(path).time.\(key)")
                guard let time = TimeOfDay(text) else { throw Problem("\(path).time.\(key)", "not a time of day: \(text)") }
                return time
            }
            return .time(after: try end("after"), before: try end("before"))
        }
        if let days = fields["weekdays"] { return .weekdays(try weekdays(days, at: "\(path).weekdays")) }
        let op = try string(fields["op"], at: "\(path).op")
        guard let comparison = Condition.Comparison(rawValue: op) else { throw Problem("\(path).op", "not a comparison: \(op)") }
        return .compare(
            try self.path(fields["characteristic"], at: "\(path).characteristic"), comparison,
            try value(fields["value"], at: "\(path).value"))
    }

    // MARK: Scene recalls

    static func encode(_ recall: SceneRecall) -> String {
        var fields: [String: JSONValue] = ["accessory": .string(recall.accessory), "scene": .integer(recall.scene)]
        if let endpoint = recall.endpoint { fields["endpoint"] = .string(endpoint) }
        return JSONValue.object(fields).serialized()
    }

    static func decodeRecall(_ text: String) throws(Problem) -> SceneRecall {
        let fields = try object(try parse(text), at: "zigbee2mqtt_scene")
        guard let scene = fields["scene"]?.intValue else { throw Problem("zigbee2mqtt_scene.scene", "not a scene id") }
        return SceneRecall(
            accessory: try string(fields["accessory"], at: "zigbee2mqtt_scene.accessory"), scene: scene,
            endpoint: try fields["endpoint"].map { e throws(Problem) in try string(e, at: "zigbee2mqtt_scene.endpoint") })
    }

    // MARK: The pieces

    private static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    private static func weekdays(_ days: Set<Int>) -> JSONValue { .array(days.sorted().map { .string(dayNames[$0 - 1]) }) }

    private static func weekdays(_ json: JSONValue, at path: String) throws(Problem) -> Set<Int> {
        var days: Set<Int> = []
        for (i, item) in try array(json, at: path).enumerated() {
            guard let name = item.stringValue, let index = dayNames.firstIndex(of: name) else {
                throw Problem("\(path)[\(i)]", "not a day")
            }
            days.insert(index + 1)
        }
        return days
    }

    private static func parse(_ text: String) throws(Problem) -> JSONValue {
        do { return try JSONValue(parsing: text) } catch { throw Problem("definition", "not JSON (\(error))") }
    }

    private static func object(_ json: JSONValue?, at path: String) throws(Problem) -> [String: JSONValue] {
        guard case .object(let fields)? = json else { throw Problem(path, "expected an object") }
        return fields
    }

    private static func array(_ json: JSONValue?, at path: String) throws(Problem) -> [JSONValue] {
        guard case .array(let items)? = json else { throw Problem(path, "expected a list") }
        return items
    }

    private static func string(_ json: JSONValue?, at path: String) throws(Problem) -> String {
        guard case .string(let text)? = json else { throw Problem(path, "expected text") }
        return text
    }

    private static func path(_ json: JSONValue?, at path: String) throws(Problem) -> CharacteristicPath {
        guard let found = CharacteristicPath(try string(json, at: path)) else {
            throw Problem(path, "not accessory/service/characteristic")
        }
        return found
    }

    private static func value(_ json: JSONValue?, at path: String) throws(Problem) -> CharacteristicValue {
        guard let json, let value = CharacteristicValue(json: json) else { throw Problem(path, "not a value") }
        return value
    }

    /// `"10m"` as written, or a number of seconds.
    private static func duration(_ json: JSONValue, at path: String) throws(Problem) -> TimeInterval {
        if let seconds = json.doubleValue, seconds.isFinite { return seconds }
        guard case .string(let text) = json, let seconds = DurationText.parse(text) else { throw Problem(path, "not a duration") }
        return seconds
    }
}
