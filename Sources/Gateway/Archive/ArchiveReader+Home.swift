import Automation
import Foundation
import HomeModel
import JSON
import Persistence

extension ArchiveReader {
    mutating func read(_ json: JSONValue, timeZone: TimeZone) -> StoredHome? {
        guard
            let root = fields(
                json, "", allowed: ["homegate_export", "primary_home", "homes", "accessories", "action_sets", "triggers", "homekit", "matter"],
                required: ["homes"])
        else { return nil }
        if let version = root["homegate_export"]?.intValue, version > HomeArchive.version {
            problem("homegate_export", "written by a newer homegate (format \(version)); this one reads format \(HomeArchive.version)")
        }
        var structureIDs: Set<String> = []
        var homeNames: Set<String> = []
        var homes: [Home] = []
        var rooms: [Room] = []
        var zones: [Zone] = []
        for (i, item) in list(root["homes"], "homes").enumerated() {
            let path = "homes[\(i)]"
            guard
                let f = fields(
                    item, path, allowed: ["id", "name", "default_room", "rooms", "zones"],
                    required: ["id", "name", "default_room", "rooms"]),
                let id = id(f["id"], "\(path).id", taken: &structureIDs)
            else { continue }
            // A bad name is reported; the home is kept so what refers to it is not reported as well.
            let name =
                name(f["name"], "\(path).name", kind: "home", unique: &homeNames, scope: "in this file") ?? f["name"]?.stringValue ?? id
            var roomNames: Set<String> = []
            var zoneNames: Set<String> = []
            for (j, roomItem) in list(f["rooms"], "\(path).rooms").enumerated() {
                let roomPath = "\(path).rooms[\(j)]"
                guard let r = fields(roomItem, roomPath, allowed: ["id", "name"], required: ["id", "name"]),
                    let roomID = self.id(r["id"], "\(roomPath).id", taken: &structureIDs)
                else { continue }
                let roomName =
                    self.name(r["name"], "\(roomPath).name", kind: "room", unique: &roomNames, scope: "in \(name)") ?? r["name"]?
                    .stringValue ?? roomID
                rooms.append(Room(id: roomID, name: roomName, home: id))
            }
            let defaultRoom = f["default_room"]?.stringValue ?? ""
            if !rooms.contains(where: { $0.id == defaultRoom && $0.home == id }) {
                problem("\(path).default_room", "'\(defaultRoom)' is not one of this home's rooms")
            }
            for (j, zoneItem) in list(f["zones"], "\(path).zones").enumerated() {
                let zonePath = "\(path).zones[\(j)]"
                guard let z = fields(zoneItem, zonePath, allowed: ["id", "name", "rooms"], required: ["id", "name"]),
                    let zoneID = self.id(z["id"], "\(zonePath).id", taken: &structureIDs),
                    let zoneName = self.name(z["name"], "\(zonePath).name", kind: "zone", unique: &zoneNames, scope: "in \(name)")
                else { continue }
                var members: [String] = []
                for member in list(z["rooms"], "\(zonePath).rooms").compactMap(\.stringValue) where !members.contains(member) {
                    members.append(member)
                }
                for member in members where !rooms.contains(where: { $0.id == member && $0.home == id }) {
                    problem("\(zonePath).rooms", "'\(member)' is not one of this home's rooms")
                }
                zones.append(Zone(id: zoneID, name: zoneName, home: id, rooms: members))
            }
            homes.append(Home(id: id, name: name, defaultRoom: defaultRoom))
        }
        guard !homes.isEmpty else {
            problem("homes", "name at least one home")
            return nil
        }
        let primary = root["primary_home"]?.stringValue ?? homes[0].id
        if !homes.contains(where: { $0.id == primary }) { problem("primary_home", "'\(primary)' is not one of the homes") }
        var placements: [String: Placement] = [:]
        var accessoryNames: [String: [String: String]] = [:]  // home → lower-cased name → accessory
        for (id, item) in (root["accessories"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            let path = "accessories.\(id)"
            guard let f = fields(item, path, allowed: ["room", "name", "pinned", "requested_room", "service_names"], required: ["room"])
            else { continue }
            let room = f["room"]?.stringValue ?? ""
            guard rooms.contains(where: { $0.id == room }) else {
                problem("\(path).room", "'\(room)' is not a room in this file")
                continue
            }
            if let name = f["name"]?.stringValue, let home = rooms.first(where: { $0.id == room })?.home {
                if let other = accessoryNames[home]?[name.lowercased()] {
                    problem(
                        "\(path).name",
                        "'\(name)' is already the name of accessory \(other) in home \(home); names are unique in a home, ignoring case")
                    continue
                }
                accessoryNames[home, default: [:]][name.lowercased()] = id
            }
            var serviceNames: [String: String] = [:]
            for (service, name) in f["service_names"]?.objectValue ?? [:] {
                guard let text = name.stringValue, case .success(let checked) = Naming.check(text, for: "service") else {
                    problem("\(path).service_names.\(service)", "expected a service's name: text of 1 to \(Naming.maximumLength) characters")
                    continue
                }
                serviceNames[service] = checked
            }
            placements[id] = Placement(
                room: room, name: f["name"]?.stringValue, pinned: f["pinned"]?.boolValue ?? false,
                requested: f["requested_room"]?.stringValue, serviceNames: serviceNames)
        }
        let structure = HomeStructure(homes: homes, primaryHome: primary, rooms: rooms, zones: zones, placements: placements)
        var stored = StoredHome(structure: structure)
        stored.actionSets = readActionSets(root["action_sets"], homes: homes)
        stored.triggers = readTriggers(root["triggers"], homes: homes, actionSets: stored.actionSets, timeZone: timeZone)
        return stored
    }

    mutating func readActionSets(_ json: JSONValue?, homes: [Home]) -> [ActionSet] {
        var ids: Set<String> = []
        var names: [String: Set<String>] = [:]
        var sets: [ActionSet] = []
        for (i, item) in list(json, "action_sets").enumerated() {
            let path = "action_sets[\(i)]"
            guard
                let f = fields(
                    item, path, allowed: ["id", "name", "home", "actions", "zigbee2mqtt_scene"], required: ["id", "name", "home"]),
                let id = id(f["id"], "\(path).id", taken: &ids), let home = f["home"]?.stringValue
            else { continue }
            guard homes.contains(where: { $0.id == home }) else {
                problem("\(path).home", "'\(home)' is not one of the homes")
                continue
            }
            guard let name = name(f["name"], "\(path).name", kind: "action set", unique: &names[home, default: []], scope: "in \(home)")
            else { continue }
            var set = ActionSet(id: id, name: name, home: home)
            do {
                if let scene = f["zigbee2mqtt_scene"] {
                    set.recall = try SceneRecall(json: scene, at: "zigbee2mqtt_scene")
                    if f["actions"]?.arrayValue?.isEmpty == false {
                        throw AutomationError("actions: a Zigbee2MQTT scene has no actions of its own")
                    }
                }
                try set.add(f["actions"] == nil ? [] : Action.list(f["actions"], at: "actions"))
                sets.append(set)
            } catch {
                problem(at: path, error)
            }
        }
        return sets
    }

    mutating func readTriggers(_ json: JSONValue?, homes: [Home], actionSets: [ActionSet], timeZone: TimeZone) -> [Trigger] {
        var ids: Set<String> = []
        var names: [String: Set<String>] = [:]
        var triggers: [Trigger] = []
        for (i, item) in list(json, "triggers").enumerated() {
            let path = "triggers[\(i)]"
            guard
                let f = fields(
                    item, path, allowed: ["id", "name", "home", "enabled", "action_sets"] + Trigger.definitionKeys,
                    required: ["id", "name", "home"]),
                let id = id(f["id"], "\(path).id", taken: &ids), let home = f["home"]?.stringValue
            else { continue }
            guard homes.contains(where: { $0.id == home }) else {
                problem("\(path).home", "'\(home)' is not one of the homes")
                continue
            }
            guard let name = name(f["name"], "\(path).name", kind: "trigger", unique: &names[home, default: []], scope: "in \(home)") else {
                continue
            }
            var sets: [String] = []
            for set in list(f["action_sets"], "\(path).action_sets").compactMap(\.stringValue) where !sets.contains(set) {
                sets.append(set)
            }
            for set in sets where !actionSets.contains(where: { $0.id == set && $0.home == home }) {
                problem("\(path).action_sets", "'\(set)' is not an action set of home '\(home)'")
            }
            do {
                let kind = try Trigger.kind(from: f, defaultTimeZone: timeZone)
                triggers.append(
                    Trigger(
                        id: id, name: name, home: home, enabled: f["enabled"]?.boolValue ?? true, actionSets: sets, kind: kind,
                        conditions: try Trigger.conditions(from: f["conditions"]), executeOnce: f["execute_once"]?.boolValue ?? false))
            } catch {
                problem(at: path, error)
            }
        }
        return triggers
    }
}
