import Automation
import Foundation
import GRDB
import GatewayCore
import HomeModel
import JSON
import Testing

@testable import Persistence

/// Triggers with every kind of event, condition and timer the model has.
private func everyShape() throws -> [Trigger] {
    let zone = TimeZone(identifier: "Europe/Amsterdam")!
    func kind(_ fields: [String: JSONValue]) throws -> Trigger.Kind { try Trigger.kind(from: fields, defaultTimeZone: zone) }
    let events = try kind([
        "events": [
            ["characteristic": "motion/motion_sensor/motion_detected", "value": false, "for": "10m"],
            ["characteristic": "weather/temperature_sensor/current_temperature", "range": ["min": 18.5]],
            ["characteristic": "hall_light/lightbulb/on"],
            ["sun": "sunset", "offset": "-30m"],
            ["sun": "sunrise"],
        ]
    ])
    let conditions = try Trigger.conditions(from: [
        "all": [
            ["time": ["after": "sunset-30m", "before": "23:15"]], ["weekdays": ["mon", "sat"]],
            ["not": ["characteristic": "hall_light/lightbulb/brightness", "op": ">=", "value": 40]],
            ["any": [["characteristic": "hall_light/lightbulb/on", "op": "=", "value": true]]],
        ]
    ])
    return [
        Trigger(id: "events", name: "Events", home: "home", actionSets: [], kind: events, conditions: conditions),
        Trigger(
            id: "pinned", name: "Pinned", home: "home", actionSets: [],
            kind: try kind([
                "timer": [
                    "fire_date": "2026-11-23T22:30", "time_zone": "Europe/Amsterdam", "recurrence": ["every": 15, "unit": "minutes"],
                ]
            ]), executeOnce: true),
        Trigger(
            id: "house", name: "House zone", home: "home", actionSets: [],
            kind: try kind(["timer": ["recurrence": ["at": "07:05", "weekdays": "weekends"]]])),
        Trigger(id: "once", name: "Once", home: "home", actionSets: [], kind: try kind(["timer": ["fire_date": "2027-01-01T00:00:30"]])),
    ]
}

@Suite("Stored trigger definitions: the database's own codec, not the request parser")
struct StoredDefinitionTests {
    @Test("every kind of event, condition and timer comes back equal")
    func roundTrip() throws {
        for trigger in try everyShape() {
            let back = try StoredDefinition.decodeTrigger(StoredDefinition.encode(trigger))
            #expect(back.kind == trigger.kind, "\(trigger.id)")
            #expect(back.conditions == trigger.conditions, "\(trigger.id)")
            #expect(back.executeOnce == trigger.executeOnce, "\(trigger.id)")
        }
    }

    @Test("the stored form is pinned: databases already written keep loading, and a change to it shows here")
    func pinned() throws {
        let written = try everyShape().map(StoredDefinition.encode)
        #expect(
            written == [
                #"{"conditions":{"all":[{"time":{"after":"sunset-30m","before":"23:15"}},{"weekdays":["mon","sat"]},{"not":{"characteristic":"hall_light/lightbulb/brightness","op":">=","value":40}},{"any":[{"characteristic":"hall_light/lightbulb/on","op":"=","value":true}]}]},"events":[{"characteristic":"motion/motion_sensor/motion_detected","for":"10m","value":false},{"characteristic":"weather/temperature_sensor/current_temperature","range":{"min":18.5}},{"characteristic":"hall_light/lightbulb/on"},{"offset":"-30m","sun":"sunset"},{"sun":"sunrise"}],"execute_once":false}"#,
                #"{"execute_once":true,"timer":{"fire_date":"2026-11-23T22:30:00","recurrence":{"every":15,"unit":"minutes"},"time_zone":"Europe/Amsterdam"}}"#,
                #"{"execute_once":false,"timer":{"recurrence":{"at":"07:05","weekdays":["sat","sun"]}}}"#,
                #"{"execute_once":false,"timer":{"fire_date":"2027-01-01T00:00:30"}}"#,
            ])
        // What homegate wrote before the codec was its own: the request form of the definition.
        for trigger in try everyShape() {
            let before = JSONValue.object(trigger.definitionJSON).serialized()
            let back = try StoredDefinition.decodeTrigger(before)
            #expect(back.kind == trigger.kind && back.conditions == trigger.conditions, "\(trigger.id)")
        }
    }

    @Test("a stored definition is read as written, without today's request checks: one a request would now refuse still loads")
    func notTheRequestChecks() throws {
        let path = temporaryDatabase()
        let store = try SQLiteHomeStore(path: path)
        try store.replaceAll(with: try sampleHome())
        // Requests take 1 to 10,000 units and at least one weekday; a database may hold what an
        // older or newer homegate accepted.
        let definition =
            #"{"execute_once":false,"timer":{"fire_date":"2026-01-01T08:00:00","recurrence":{"every":20000,"unit":"minutes"}}}"#
        #expect(throws: AutomationError.self) {
            try Trigger.kind(from: try #require(try JSONValue(parsing: definition).objectValue), defaultTimeZone: .gmt)
        }
        try DatabaseQueue(path: path).write {
            try $0.execute(sql: "UPDATE triggers SET definition = ? WHERE id = 'night'", arguments: [definition])
        }
        let loaded = try #require(try store.load())
        #expect(loaded.skipped.isEmpty)
        let night = try #require(loaded.triggers.first { $0.id == "night" })
        guard case .timer(let schedule) = night.kind else {
            Issue.record("not a timer: \(night.kind)")
            return
        }
        #expect(schedule.recurrence == .every(20000, .minutes) && schedule.followsHouseZone)
    }

    @Test("a scene recall comes back equal, with and without an endpoint")
    func sceneRecall() throws {
        for recall in [SceneRecall(accessory: "desk_lights", scene: 1), SceneRecall(accessory: "strip", scene: 255, endpoint: "l2")] {
            #expect(try StoredDefinition.decodeRecall(StoredDefinition.encode(recall)) == recall)
        }
        #expect(StoredDefinition.encode(SceneRecall(accessory: "desk_lights", scene: 1)) == #"{"accessory":"desk_lights","scene":1}"#)
    }
}
