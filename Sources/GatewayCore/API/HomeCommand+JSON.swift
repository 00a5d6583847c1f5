import Automation
public import Foundation
public import HomeModel
public import JSON

extension HomeCommand {
    /// Every command by its name in the API (`homegate/request/<name>`).
    public static let names: [String] = [
        "accessories", "characteristic/read", "characteristic/write",
        "home/list", "home/add", "home/rename", "home/set_primary", "home/remove",
        "room/list", "room/add", "room/rename", "room/remove",
        "zone/list", "zone/add", "zone/rename", "zone/remove", "zone/add_room", "zone/remove_room",
        "accessory/assign_room", "accessory/rename", "accessory/rename_service", "accessory/identify",
        "action_set/list", "action_set/add", "action_set/update", "action_set/remove", "action_set/execute",
        "trigger/list", "trigger/add", "trigger/update", "trigger/enable", "trigger/remove",
    ]

    /// A request's command from its JSON, as MQTT's `request/<name>` and the HTTP routes carry it; a
    /// `characteristic/write` also keeps its entries, so that a malformed one fails alone and each
    /// is answered (`WriteBatch.results`).
    public static func request(_ name: String, _ body: JSONValue, timeZone: TimeZone) throws(HomeError) -> (HomeCommand, WriteBatch?) {
        if name == "characteristic/write", case .object = body {
            try RequestBody(body: body).only(["writes"])
            let writes = try WriteBatch(body)
            return (.values(.write(writes.requests)), writes)
        }
        return (try parse(name, body, timeZone: timeZone), nil)
    }

    /// Reads the JSON body of the command called `name`: unknown fields are refused with a
    /// "did you mean", wrong ones named. A `characteristic/write` with a malformed entry is refused
    /// whole; read it with `WriteBatch` to write the good entries and answer each. `timeZone` is the house's, for trigger times that name none.
    public static func parse(_ name: String, _ json: JSONValue, timeZone: TimeZone) throws(HomeError) -> HomeCommand {
        guard case .object = json else { throw .invalid("the request must be a JSON object") }
        let r = RequestBody(body: json)
        do {
            return try parse(name, r, timeZone: timeZone)
        } catch {
            throw HomeError(error)  // the model's and the automation rules' errors, each with its kind
        }
    }

    private static func parse(_ name: String, _ r: RequestBody, timeZone: TimeZone) throws -> HomeCommand {
        switch name {
        case "accessories":
            try r.only([])
            return .values(.tree)
        case "characteristic/write":
            // Whole or not at all here; `WriteBatch` answers each entry on its own.
            try r.only(["writes"])
            return .values(.write(try WriteBatch(r.body).entries.map { entry throws(HomeError) in try entry.get() }))
        case "characteristic/read":
            try r.only(["accessory", "service", "characteristic"])
            guard let (a, s, c) = RequestBody.characteristicReference(r.body) else {
                throw HomeError.invalid(
                    "expected \"characteristic\": \"accessory/service/characteristic\", or accessory, service and characteristic",
                    field: "characteristic")
            }
            return .values(.read(CharacteristicPath(accessory: a, service: s, characteristic: c)))
        case "home/list":
            try r.only([])
            return .structure(.listHomes)
        case "home/add":
            try r.only(["name"])
            return .structure(.addHome(name: try r.string("name")))
        case "home/rename":
            try r.only(["home", "name"])
            return .structure(.renameHome(try r.string("home"), to: try r.string("name")))
        case "home/set_primary":
            try r.only(["home"])
            return .structure(.setPrimaryHome(try r.string("home")))
        case "home/remove":
            try r.only(["home"])
            return .structure(.removeHome(try r.string("home")))
        case "room/list":
            try r.only(["home"])
            return .structure(.listRooms(home: try r.optionalString("home")))
        case "room/add":
            try r.only(["name", "home"])
            return .structure(.addRoom(name: try r.string("name"), home: try r.optionalString("home")))
        case "room/rename":
            try r.only(["room", "name", "home"])
            return .structure(.renameRoom(try r.string("room"), to: try r.string("name"), home: try r.optionalString("home")))
        case "room/remove":
            try r.only(["room", "home"])
            return .structure(.removeRoom(try r.string("room"), home: try r.optionalString("home")))
        case "zone/list":
            try r.only(["home"])
            return .structure(.listZones(home: try r.optionalString("home")))
        case "zone/add":
            try r.only(["name", "home", "rooms"])
            return .structure(.addZone(name: try r.string("name"), home: try r.optionalString("home"), rooms: try r.strings("rooms") ?? []))
        case "zone/rename":
            try r.only(["zone", "name", "home"])
            return .structure(.renameZone(try r.string("zone"), to: try r.string("name"), home: try r.optionalString("home")))
        case "zone/remove":
            try r.only(["zone", "home"])
            return .structure(.removeZone(try r.string("zone"), home: try r.optionalString("home")))
        case "zone/add_room":
            try r.only(["zone", "room", "home"])
            return .structure(.addRoomToZone(zone: try r.string("zone"), room: try r.string("room"), home: try r.optionalString("home")))
        case "zone/remove_room":
            try r.only(["zone", "room", "home"])
            return .structure(
                .removeRoomFromZone(zone: try r.string("zone"), room: try r.string("room"), home: try r.optionalString("home")))
        case "accessory/assign_room":
            try r.only(["accessory", "room", "home"])
            return .accessories(
                .assignRoom(accessory: try r.string("accessory"), room: try r.string("room"), home: try r.optionalString("home")))
        case "accessory/rename":
            try r.only(["accessory", "name"])
            return .accessories(.rename(try r.string("accessory"), to: try r.optionalString("name")))
        case "accessory/rename_service":
            try r.only(["accessory", "service", "name"])
            return .accessories(.renameService(try r.string("accessory"), service: try r.string("service"), to: try r.optionalString("name")))
        case "accessory/identify":
            try r.only(["accessory"])
            return .accessories(.identify(try r.string("accessory")))
        case "action_set/list":
            try r.only(["home", "offset", "limit"])
            return .actionSets(.list(home: try r.optionalString("home"), page: try r.page()))
        case "action_set/add":
            try r.only(["name", "home", "actions"])
            let actions = r.body["actions"] == nil ? [] : try Action.list(r.body["actions"], at: "actions")
            return .actionSets(.add(name: try r.string("name"), home: try r.optionalString("home"), actions: actions))
        case "action_set/update":
            try r.only(["action_set", "home", "name", "actions", "add_actions", "remove_actions"])
            let changes = ActionSetChanges(
                name: try r.optionalString("name"),
                actions: try r.body["actions"].map { json throws(AutomationError) in try Action.list(json, at: "actions") },
                removeActions: try r.body["remove_actions"].map { json throws(AutomationError) in
                    try Action.paths(json, at: "remove_actions")
                },
                addActions: try r.body["add_actions"].map { json throws(AutomationError) in try Action.list(json, at: "add_actions") })
            return .actionSets(.update(try r.string("action_set"), home: try r.optionalString("home"), changes))
        case "action_set/remove":
            try r.only(["action_set", "home"])
            return .actionSets(.remove(try r.string("action_set"), home: try r.optionalString("home")))
        case "action_set/execute":
            try r.only(["action_set", "home"])
            return .actionSets(.execute(try r.string("action_set"), home: try r.optionalString("home")))
        case "trigger/list":
            try r.only(["home", "offset", "limit"])
            return .triggers(.list(home: try r.optionalString("home"), page: try r.page()))
        case "trigger/add":
            try r.only(["name", "home", "action_sets", "enabled"] + Trigger.definitionKeys)
            let fields = r.body.objectValue ?? [:]
            let draft = TriggerDraft(
                name: try r.string("name"), home: try r.optionalString("home"), enabled: try r.bool("enabled", default: true),
                actionSets: try r.strings("action_sets") ?? [], kind: try Trigger.kind(from: fields, defaultTimeZone: timeZone),
                conditions: try Trigger.conditions(from: fields["conditions"]), executeOnce: try r.bool("execute_once", default: false))
            return .triggers(.add(draft))
        case "trigger/update":
            try r.only(["trigger", "home", "name", "action_sets", "enabled"] + Trigger.definitionKeys)
            let fields = r.body.objectValue ?? [:]
            var changes = TriggerChanges(name: try r.optionalString("name"), actionSets: try r.strings("action_sets"))
            if fields["timer"] != nil || fields["events"] != nil {
                changes.kind = try Trigger.kind(from: fields, defaultTimeZone: timeZone)
            }
            if fields.keys.contains("conditions") { changes.conditions = .some(try Trigger.conditions(from: fields["conditions"])) }
            if fields["execute_once"] != nil { changes.executeOnce = try r.bool("execute_once", default: false) }
            if let enabled = fields["enabled"], enabled != .null { changes.enabled = try r.bool("enabled", default: true) }
            return .triggers(.update(try r.string("trigger"), home: try r.optionalString("home"), changes))
        case "trigger/enable":
            try r.only(["trigger", "home", "enabled"])
            return .triggers(
                .enable(try r.string("trigger"), home: try r.optionalString("home"), enabled: try r.bool("enabled", default: true)))
        case "trigger/remove":
            try r.only(["trigger", "home"])
            return .triggers(.remove(try r.string("trigger"), home: try r.optionalString("home")))
        default:
            throw HomeError.notFound("unknown command '\(name)'\(didYouMean(name, names))")
        }
    }
}

/// The entries of a `characteristic/write`: each is read on its own, so one malformed entry fails
/// alone and the others are written.
public struct WriteBatch: Sendable {
    public let items: [JSONValue]
    public let entries: [Result<WriteRequest, HomeError>]

    public init(_ body: JSONValue) throws(HomeError) {
        guard let items = body["writes"]?.arrayValue, !items.isEmpty else {
            throw .invalid("expected \"writes\": a non-empty list of {accessory, service, characteristic, value}", field: "writes")
        }
        self.items = items
        entries = items.enumerated().map { index, item in
            do throws(HomeError) {
                let body = RequestBody(body: item)
                try body.only(["accessory", "service", "characteristic", "value", "transition"])
                guard let (a, s, c) = RequestBody.characteristicReference(item), let v = item["value"] else {
                    throw .invalid(
                        "each write needs a value and either \"characteristic\": \"accessory/service/characteristic\" "
                            + "or accessory, service and characteristic", field: "writes[\(index)]")
                }
                return .success(WriteRequest(accessory: a, service: s, characteristic: c, value: v, transition: try body.transition()))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The well-formed entries, to run.
    public var requests: [WriteRequest] { entries.compactMap { try? $0.get() } }

    /// One result per entry, the malformed ones' included: `status` ok with the value as written,
    /// or error with why; and the failure of the whole when any failed (a lone write's own reason).
    public func results(_ outcomes: [Result<CharacteristicValue, HomeError>]) -> (data: JSONValue, error: HomeError?) {
        var outcomes = outcomes.makeIterator()
        var results: [JSONValue] = []
        var failures: [HomeError] = []
        for (item, entry) in zip(items, entries) {
            var fields: [String: JSONValue] = [:]
            for key in ["accessory", "service", "characteristic"] { if let v = item[key] { fields[key] = v } }
            let outcome: Result<CharacteristicValue, HomeError>
            switch entry {
            case .failure(let problem): outcome = .failure(problem)
            case .success: outcome = outcomes.next() ?? .failure(.invalid("not written"))
            }
            HomeJSON.describe(outcome.map { $0 }, into: &fields)
            if case .failure(let problem) = outcome { failures.append(problem) }
            results.append(.object(fields))
        }
        let data: JSONValue = ["results": .array(results)]
        guard let first = failures.first else { return (data, nil) }
        guard items.count > 1 else { return (data, first) }
        return (data, HomeError(first.kind, "\(failures.count) of \(items.count) writes failed"))
    }
}
