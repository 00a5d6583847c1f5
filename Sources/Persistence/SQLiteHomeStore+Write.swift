import Automation
import Foundation
import GRDB
import GatewayCore
import HomeModel
import JSON

extension SQLiteHomeStore {
    /// One batch in one transaction. Foreign keys are checked at commit, so the order of the
    /// statements does not matter, only that the result is whole.
    /// Every upsert sets every column: a thing removed and added again under the same id (its name
    /// reused) within one batch is written whole, in its new home.
    static func apply(_ batch: StoreBatch, to db: Database) throws {
        // What every batch runs is kept prepared: parsing a statement costs more than running it.
        try db.cachedStatement(sql: "PRAGMA defer_foreign_keys = ON").execute()
        if batch.replacesAll {
            for table in [
                "characteristic_values", "held_deadlines", "trigger_states", "trigger_action_sets", "triggers", "actions",
                "action_sets", "service_names", "accessories", "zone_rooms", "zones", "rooms", "homes",
            ] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
        for (id, home) in batch.homes {
            guard let home else { try db.execute(sql: "DELETE FROM homes WHERE id = ?", arguments: [id]); continue }
            try db.execute(
                sql: """
                    INSERT INTO homes (id, name, default_room, position) VALUES (?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM homes))
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, default_room = excluded.default_room
                    """, arguments: [id, home.name, home.defaultRoom])
        }
        if let primary = batch.primaryHome {
            try db.execute(sql: "UPDATE homes SET is_primary = (id = ?)", arguments: [primary])
        }
        for (id, room) in batch.rooms {
            guard let room else { try db.execute(sql: "DELETE FROM rooms WHERE id = ?", arguments: [id]); continue }
            try db.execute(
                sql: """
                    INSERT INTO rooms (id, home_id, name, position) VALUES (?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM rooms))
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, home_id = excluded.home_id
                    """, arguments: [id, room.home, room.name])
        }
        for (id, zone) in batch.zones {
            guard let zone else { try db.execute(sql: "DELETE FROM zones WHERE id = ?", arguments: [id]); continue }
            try db.execute(
                sql: """
                    INSERT INTO zones (id, home_id, name, position) VALUES (?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM zones))
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, home_id = excluded.home_id
                    """, arguments: [id, zone.home, zone.name])
            try db.execute(sql: "DELETE FROM zone_rooms WHERE zone_id = ?", arguments: [id])
            for (position, room) in zone.rooms.enumerated() {
                try db.execute(
                    sql: "INSERT INTO zone_rooms (zone_id, room_id, position) VALUES (?, ?, ?)", arguments: [id, room, position])
            }
        }
        for (id, placement) in batch.placements {
            guard let placement else { try db.execute(sql: "DELETE FROM accessories WHERE id = ?", arguments: [id]); continue }
            try db.execute(
                sql: """
                    INSERT INTO accessories (id, room_id, name, pinned, requested_room) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET room_id = excluded.room_id, name = excluded.name, pinned = excluded.pinned,
                        requested_room = excluded.requested_room
                    """, arguments: [id, placement.room, placement.name, placement.pinned, placement.requested])
            try db.cachedStatement(sql: "DELETE FROM service_names WHERE accessory = ?").execute(arguments: [id])
            for (service, name) in placement.serviceNames.sorted(by: { $0.key < $1.key }) {
                try db.cachedStatement(sql: "INSERT INTO service_names (accessory, service, name) VALUES (?, ?, ?)")
                    .execute(arguments: [id, service, name])
            }
        }
        for (id, set) in batch.actionSets {
            guard let set else { try db.execute(sql: "DELETE FROM action_sets WHERE id = ?", arguments: [id]); continue }
            try db.execute(
                sql: """
                    INSERT INTO action_sets (id, home_id, name, last_executed, zigbee2mqtt_scene, position)
                    VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM action_sets))
                    ON CONFLICT(id) DO UPDATE SET home_id = excluded.home_id, name = excluded.name, last_executed = excluded.last_executed,
                        zigbee2mqtt_scene = excluded.zigbee2mqtt_scene
                    """,
                arguments: [id, set.home, set.name, set.lastExecuted?.timeIntervalSince1970, set.recall.map(StoredDefinition.encode)])
            try db.execute(sql: "DELETE FROM actions WHERE action_set_id = ?", arguments: [id])
            for (position, action) in set.actions.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO actions (action_set_id, position, accessory, service, characteristic, value) VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, position, action.path.accessory, action.path.service, action.path.characteristic,
                        action.value.json.serialized(),
                    ])
            }
        }
        for (id, trigger) in batch.triggers {
            guard let trigger else { try db.execute(sql: "DELETE FROM triggers WHERE id = ?", arguments: [id]); continue }
            try db.execute(
                sql: """
                    INSERT INTO triggers (id, home_id, name, enabled, definition, position)
                    VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM triggers))
                    ON CONFLICT(id) DO UPDATE SET home_id = excluded.home_id, name = excluded.name, enabled = excluded.enabled,
                        definition = excluded.definition
                    """,
                arguments: [id, trigger.home, trigger.name, trigger.enabled, StoredDefinition.encode(trigger)])
            try db.execute(sql: "DELETE FROM trigger_action_sets WHERE trigger_id = ?", arguments: [id])
            for (position, set) in trigger.actionSets.enumerated() {
                try db.execute(
                    sql: "INSERT INTO trigger_action_sets (trigger_id, action_set_id, position) VALUES (?, ?, ?)",
                    arguments: [id, set, position])
            }
        }
        for (id, runtime) in batch.runtimes {
            try db.cachedStatement(sql: "DELETE FROM held_deadlines WHERE trigger_id = ?").execute(arguments: [id])
            guard let runtime else { try db.execute(sql: "DELETE FROM trigger_states WHERE trigger_id = ?", arguments: [id]); continue }
            // A trigger removed in this batch takes its state with it.
            let exists = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM triggers WHERE id = ?)")
            guard try Bool.fetchOne(exists, arguments: [id]) == true else { continue }
            try db.cachedStatement(
                sql: """
                    INSERT INTO trigger_states (trigger_id, last_fired, since) VALUES (?, ?, ?)
                    ON CONFLICT(trigger_id) DO UPDATE SET last_fired = excluded.last_fired, since = excluded.since
                    """
            ).execute(arguments: [id, runtime.lastFired?.timeIntervalSince1970, runtime.since.timeIntervalSince1970])
            for (index, deadline) in runtime.held {
                try db.cachedStatement(sql: "INSERT INTO held_deadlines (trigger_id, event_index, deadline) VALUES (?, ?, ?)")
                    .execute(arguments: [id, index, deadline.timeIntervalSince1970])
            }
        }
        for (id, date) in batch.lastFired {
            try db.cachedStatement(sql: "UPDATE trigger_states SET last_fired = ? WHERE trigger_id = ?")
                .execute(arguments: [date.timeIntervalSince1970, id])
        }
        for (id, date) in batch.lastExecuted {
            try db.cachedStatement(sql: "UPDATE action_sets SET last_executed = ? WHERE id = ?")
                .execute(arguments: [date.timeIntervalSince1970, id])
        }
        for (base, inventory) in batch.inventories { try write(inventory, base: base, to: db) }
        if !batch.values.isEmpty {
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO characteristic_values (accessory, service, characteristic, value, updated) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(accessory, service, characteristic) DO UPDATE SET value = excluded.value, updated = excluded.updated
                    """)
            let time = batch.valuesTime.timeIntervalSince1970
            for (path, value) in batch.values {
                try statement.execute(arguments: [path.accessory, path.service, path.characteristic, value.json.serialized(), time])
            }
        }
    }
}
