import Automation
import Foundation
import HomeModel
public import JSON

/// The JSON every front end speaks: results, errors and events as the MQTT API documents them
/// (docs/mqtt-api.md), so another transport carries the same payloads.
public enum HomeJSON {
    /// `"status": "ok", "value": 80` or `"status": "error", "error": "..."`: one write's result.
    static func describe(_ outcome: Result<CharacteristicValue?, HomeError>, into fields: inout [String: JSONValue]) {
        switch outcome {
        case .success(let value):
            fields["status"] = "ok"
            if let value { fields["value"] = value.json }
        case .failure(let problem):
            fields["status"] = "error"
            fields["error"] = .string(problem.message)
        }
    }

    /// A reply as `{"status":"ok","data":…}` or `{"status":"error","error":"…","data":…}`. A
    /// `characteristic/write` reply is made by its `WriteBatch`, which knows the malformed entries.
    public static func reply(_ reply: Reply) -> [String: JSONValue] {
        var payload: [String: JSONValue]
        if let error = reply.error {
            payload = ["status": "error", "error": .string(error.message)]
        } else {
            payload = ["status": "ok"]
        }
        if let result = reply.result { payload["data"] = json(result) }
        return payload
    }

    /// What a change that is made but could not be stored says: `"kind": "storage"` and what becomes of it.
    public static func unstoredMessage(_ reason: String) -> String {
        "the change is made but could not be stored (\(reason)); it is kept and stored as soon as the database can be written, "
            + "and lost if homegate stops before then"
    }

    /// An `ok` reply turned into the error it is when its change could not be stored.
    public static func describeUnstored(_ reason: String, into fields: inout [String: JSONValue]) {
        fields["status"] = "error"
        fields["kind"] = "storage"
        fields["error"] = .string(unstoredMessage(reason))
    }

    public static func json(_ result: HomeResult) -> JSONValue {
        switch result {
        case .accessories(let accessories, let lastSeen):
            [
                "accessories": .array(
                    accessories.map { accessory in
                        let json = accessory.treeJSON
                        guard let seen = lastSeen[accessory.id], case .object(var fields) = json else { return json }
                        fields["last_seen"] = .string(instantText(seen))
                        return .object(fields)
                    })
            ]
        case .writes(let outcomes):
            [
                "results": .array(
                    outcomes.map { outcome in
                        var fields: [String: JSONValue] = [:]
                        describe(outcome.map { $0 }, into: &fields)
                        return .object(fields)
                    })
            ]
        case .read(let read):
            [
                "accessory": .string(read.path.accessory), "service": .string(read.path.service),
                "characteristic": .string(read.path.characteristic),
                "value": read.value?.json ?? .null, "fresh": .bool(read.fresh),
            ]
        case .homes(let primary, let homes): ["primary": .string(primary), "homes": .array(homes.map(json))]
        case .home(let home): json(home)
        case .rooms(let home, let rooms): ["home": .string(home), "rooms": .array(rooms.map(json))]
        case .room(let room): json(room)
        case .zones(let home, let zones): ["home": .string(home), "zones": .array(zones.map(json))]
        case .zone(let zone): json(zone)
        case .placement(let placement):
            [
                "id": .string(placement.id), "name": .string(placement.name), "room": placement.room.map { .string($0) } ?? .null,
                "home": placement.home.map { .string($0) } ?? .null,
            ]
        case .serviceName(let accessory, let service, let name):
            ["accessory": .string(accessory), "service": .string(service), "name": name.map { .string($0) } ?? .null]
        case .actionSets(let home, let total, let sets):
            ["home": .string(home), "total": .integer(total), "action_sets": .array(sets.map(\.json))]
        case .actionSet(let set): set.json
        case .execution(let run): json(run)
        case .triggers(let home, let total, let triggers):
            ["home": .string(home), "total": .integer(total), "triggers": .array(triggers.map(json))]
        case .trigger(let status): json(status)
        case .removed(let id): ["removed": .string(id)]
        case .identified(let accessory, let payload): ["accessory": .string(accessory), "sent": payload]
        }
    }

    static func json(_ summary: HomeSummary) -> JSONValue {
        [
            "id": .string(summary.home.id), "name": .string(summary.home.name), "primary": .bool(summary.primary),
            "default_room": .string(summary.home.defaultRoom), "rooms": .array(summary.rooms.map(json)),
            "zones": .array(summary.zones.map(json)),
        ]
    }

    static func json(_ summary: RoomSummary) -> JSONValue {
        [
            "id": .string(summary.room.id), "name": .string(summary.room.name), "home": .string(summary.room.home),
            "accessories": .array(summary.accessories.map { .string($0) }),
        ]
    }

    static func json(_ zone: Zone) -> JSONValue {
        ["id": .string(zone.id), "name": .string(zone.name), "home": .string(zone.home), "rooms": .array(zone.rooms.map { .string($0) })]
    }

    static func json(_ status: TriggerStatus) -> JSONValue {
        var fields = status.trigger.json
        fields["last_fired"] = status.lastFired.map { .string(instantText($0)) } ?? .null
        fields["next_fire"] = status.nextFire.map { .string(instantText($0)) } ?? .null
        if !status.held.isEmpty {
            fields["pending"] = .array(
                status.held.sorted { $0.key < $1.key }.map { ["event": .integer($0.key), "deadline": .string(instantText($0.value))] })
        }
        return .object(fields)
    }

    /// `{"action_set": "movie_night", "results": [{"characteristic": "bulb/lightbulb/on", "status": "ok", "value": true}]}`.
    static func json(_ run: ActionSetRun) -> JSONValue {
        ["action_set": .string(run.actionSet), "results": .array(run.steps.map(json))]
    }

    static func json(_ step: ActionSetRun.Step) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        switch step.target {
        case .characteristic(let path): fields["characteristic"] = .string(path.description)
        case .scene(let recall): fields["zigbee2mqtt_scene"] = recall.json
        }
        describe(step.outcome, into: &fields)
        return .object(fields)
    }

    // MARK: Events

    /// An event's payload on `homegate/event/…`, with `time` as given (one formatted time per
    /// batch). Keys sorted, as every payload. A characteristic's event, one for every reading, is
    /// written straight to bytes: building its dictionary to serialize it was a good part of
    /// rendering a reading (callgrind; docs/performance.md).
    public static func eventPayload(_ event: HomeEvent, time: String) -> [UInt8] {
        guard case .characteristic(let change) = event else { return structureJSON(event, time: time).serializedBytes() }
        var out: [UInt8] = []
        out.reserveCapacity(128 + change.accessory.utf8.count + change.service.utf8.count)
        out.append(contentsOf: #"{"accessory":"#.utf8)
        JSONValue.writeString(change.accessory, to: &out)
        out.append(contentsOf: #","characteristic":"#.utf8)
        JSONValue.writeString(change.characteristic, to: &out)
        out.append(contentsOf: #","previous":"#.utf8)
        (change.previous?.json ?? .null).write(to: &out)
        out.append(contentsOf: #","service":"#.utf8)
        JSONValue.writeString(change.service, to: &out)
        out.append(contentsOf: #","source":"#.utf8)
        JSONValue.writeString(change.source.description, to: &out)
        out.append(contentsOf: #","time":"#.utf8)
        JSONValue.writeString(time, to: &out)
        out.append(contentsOf: #","value":"#.utf8)
        change.value.json.write(to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The events of the home's structure, action sets and triggers.
    private static func structureJSON(_ event: HomeEvent, time: String) -> JSONValue {
        var fields: [String: JSONValue]
        switch event {
        case .characteristic:
            preconditionFailure("a characteristic's event is written by eventPayload")
        case .accessory(let id, let change, let state):
            fields = ["type": "accessory", "id": .string(id), "change": .string(change.rawValue)]
            if let state {
                fields["name"] = .string(state.name)
                fields["reachable"] = .bool(state.reachable)
                if let reason = state.unreachableReason { fields["unreachable_reason"] = .string(reason) }
                if let home = state.home { fields["home"] = .string(home) }
                if let room = state.room { fields["room"] = .string(room) }
                if let service = state.service {
                    fields["service"] = .string(service.id)
                    fields["service_name"] = service.name.map { .string($0) } ?? .null
                }
            }
        case .home(let id, let change, let home, let primary):
            fields = ["type": "home", "id": .string(id), "change": .string(change.rawValue)]
            if let home { fields["name"] = .string(home.name); fields["primary"] = .bool(primary) }
        case .room(let id, let change, let room):
            fields = ["type": "room", "id": .string(id), "change": .string(change.rawValue)]
            if let room { fields["name"] = .string(room.name); fields["home"] = .string(room.home) }
        case .zone(let id, let change, let zone):
            fields = ["type": "zone", "id": .string(id), "change": .string(change.rawValue)]
            if let zone {
                fields["name"] = .string(zone.name)
                fields["home"] = .string(zone.home)
                fields["rooms"] = .array(zone.rooms.map { .string($0) })
            }
        case .actionSet(let id, let event):
            fields = [
                "type": "action_set", "id": .string(id), "change": .string(event.change.rawValue), "name": .string(event.name),
                "home": .string(event.home),
            ]
            if let (source, run) = event.run {
                fields["source"] = .string(source.description)
                fields["results"] = .array(run.steps.map(json))
            }
        case .trigger(let id, let event):
            fields = [
                "type": "trigger", "id": .string(id), "change": .string(event.change.rawValue), "name": .string(event.name),
                "home": .string(event.home),
            ]
            if let (firing, runs) = event.fired {
                fields["cause"] = firing.causeJSON
                fields["action_sets"] = .array(runs.map(json))
                if firing.disabledItself { fields["disabled"] = true }
            }
            if let (detail, triggers) = event.loop {
                fields["reason"] = "loop"
                fields["detail"] = .string(detail)
                fields["loop"] = .array(triggers.map { .string($0) })
            }
        case .mappingFile(let event):
            fields = ["type": "mapping_file", "id": .string(event.name), "file": .string(event.path), "change": .string(event.change.rawValue)]
            if event.change == .broken {
                fields["errors"] = .array(event.errors.map { .string($0) })
                fields["kept_previous"] = .bool(event.keptPrevious)
            }
        }
        fields["time"] = .string(time)
        return .object(fields)
    }
}
