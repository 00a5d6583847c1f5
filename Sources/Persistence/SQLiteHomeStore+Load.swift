import Automation
import Foundation
import GRDB
public import GatewayCore
import HomeModel
import JSON

extension SQLiteHomeStore {
    public func load() throws(PersistenceError) -> StoredHome? {
        do {
            return try database.read { db -> StoredHome? in
                let homeRows = try Row.fetchAll(db, sql: "SELECT * FROM homes ORDER BY position")
                guard !homeRows.isEmpty else { return nil }
                let homes = homeRows.map { Home(id: $0["id"], name: $0["name"], defaultRoom: $0["default_room"]) }
                let primary: String = homeRows.first { $0["is_primary"] as Bool }?["id"] ?? homes[0].id
                let rooms = try Row.fetchAll(db, sql: "SELECT * FROM rooms ORDER BY position").map {
                    Room(id: $0["id"], name: $0["name"], home: $0["home_id"])
                }
                var zoneRooms: [String: [String]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT zone_id, room_id FROM zone_rooms ORDER BY zone_id, position") {
                    zoneRooms[row["zone_id"], default: []].append(row["room_id"])
                }
                let zones = try Row.fetchAll(db, sql: "SELECT * FROM zones ORDER BY position").map {
                    Zone(id: $0["id"], name: $0["name"], home: $0["home_id"], rooms: zoneRooms[$0["id"]] ?? [])
                }
                var serviceNames: [String: [String: String]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT * FROM service_names") {
                    serviceNames[row["accessory"], default: [:]][row["service"]] = row["name"]
                }
                var placements: [String: Placement] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT * FROM accessories") {
                    placements[row["id"]] = Placement(
                        room: row["room_id"], name: row["name"], pinned: row["pinned"], requested: row["requested_room"],
                        serviceNames: serviceNames[row["id"]] ?? [:])
                }
                var stored = StoredHome(
                    structure: HomeStructure(homes: homes, primaryHome: primary, rooms: rooms, zones: zones, placements: placements))
                try Self.loadAutomation(db, into: &stored)
                try Self.loadInventories(db, into: &stored)
                return stored
            }
        } catch let error as PersistenceError {
            throw error
        } catch {
            throw .failed(path: path, operation: "loading", reason: "\(error)")
        }
    }

    /// A list that cannot be read is skipped (and said): the bridge's accessories then wait for the broker.
    /// The device list is handed on as its text, checked only for an array's shape: the core reads it
    /// a device at a time (as a list from the broker), never as one `JSONValue` of the whole list.
    private static func loadInventories(_ db: Database, into stored: inout StoredHome) throws {
        for row in try Row.fetchAll(db, sql: "SELECT * FROM zigbee2mqtt_inventory ORDER BY base_topic") {
            let base: String = row["base_topic"]
            let devices = Array((row["devices"] as String).utf8)
            guard devices.withUnsafeBufferPointer({ JSONValue.elementRanges(ofArray: $0) }) != nil else {
                stored.skipped.append("the device list of Zigbee2MQTT bridge \(base) cannot be read; its accessories wait for the broker")
                continue
            }
            let groups = (row["groups"] as String?).flatMap { try? JSONValue(parsing: $0) }?.serializedBytes()
            stored.inventories.append(StoredInventory(baseTopic: base, devicesText: { devices }, groupsText: { groups }))
        }
    }

    private static func loadAutomation(_ db: Database, into stored: inout StoredHome) throws {
        var actions: [String: [Action]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM actions ORDER BY action_set_id, position") {
            let path = CharacteristicPath(accessory: row["accessory"], service: row["service"], characteristic: row["characteristic"])
            guard let json = try? JSONValue(parsing: row["value"] as String), let value = CharacteristicValue(json: json) else {
                stored.skipped.append("action set \(row["action_set_id"] as String): the action on \(path) has no readable value")
                continue
            }
            actions[row["action_set_id"], default: []].append(Action(path, value))
        }
        stored.actionSets = try Row.fetchAll(db, sql: "SELECT * FROM action_sets ORDER BY position").compactMap { row in
            var recall: SceneRecall?
            if let text = row["zigbee2mqtt_scene"] as String? {
                do {
                    recall = try StoredDefinition.decodeRecall(text)
                } catch {
                    stored.skipped.append("action set \(row["id"] as String): its Zigbee2MQTT scene cannot be read (\(error))")
                    return nil
                }
            }
            return ActionSet(
                id: row["id"], name: row["name"], home: row["home_id"], actions: actions[row["id"]] ?? [],
                lastExecuted: (row["last_executed"] as Double?).map { Date(timeIntervalSince1970: $0) }, recall: recall)
        }
        var links: [String: [String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT trigger_id, action_set_id FROM trigger_action_sets ORDER BY trigger_id, position") {
            links[row["trigger_id"], default: []].append(row["action_set_id"])
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM triggers ORDER BY position") {
            let id: String = row["id"]
            do {
                let definition = try StoredDefinition.decodeTrigger(row["definition"])
                stored.triggers.append(
                    Trigger(
                        id: id, name: row["name"], home: row["home_id"], enabled: row["enabled"], actionSets: links[id] ?? [],
                        kind: definition.kind, conditions: definition.conditions, executeOnce: definition.executeOnce))
            } catch {
                stored.skipped.append("trigger \(id): its definition cannot be read (\(error))")
            }
        }
        var held: [String: [Int: Date]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM held_deadlines") {
            held[row["trigger_id"], default: [:]][row["event_index"]] = Date(timeIntervalSince1970: row["deadline"])
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM trigger_states") {
            let id: String = row["trigger_id"]
            stored.runtimes[id] = TriggerRuntime(
                lastFired: (row["last_fired"] as Double?).map { Date(timeIntervalSince1970: $0) },
                since: Date(timeIntervalSince1970: row["since"]), held: held[id] ?? [:])
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM characteristic_values") {
            guard let json = try? JSONValue(parsing: row["value"] as String), let value = CharacteristicValue(json: json) else { continue }
            stored.values[CharacteristicPath(accessory: row["accessory"], service: row["service"], characteristic: row["characteristic"])] =
                value
        }
    }
}
