import GRDB

/// The schema, one migration per version. Never edit a migration that has shipped: add the next one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1: homes, rooms, zones, accessories, action sets, triggers, values") { db in
            try db.execute(
                sql: """
                    CREATE TABLE homes (
                        id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, default_room TEXT NOT NULL,
                        is_primary INTEGER NOT NULL DEFAULT 0, position INTEGER NOT NULL);
                    CREATE TABLE rooms (
                        id TEXT PRIMARY KEY NOT NULL, home_id TEXT NOT NULL REFERENCES homes(id) ON DELETE CASCADE,
                        name TEXT NOT NULL, position INTEGER NOT NULL);
                    CREATE TABLE zones (
                        id TEXT PRIMARY KEY NOT NULL, home_id TEXT NOT NULL REFERENCES homes(id) ON DELETE CASCADE,
                        name TEXT NOT NULL, position INTEGER NOT NULL);
                    CREATE TABLE zone_rooms (
                        zone_id TEXT NOT NULL REFERENCES zones(id) ON DELETE CASCADE,
                        room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL, PRIMARY KEY (zone_id, room_id));
                    CREATE TABLE accessories (
                        id TEXT PRIMARY KEY NOT NULL, room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                        name TEXT, pinned INTEGER NOT NULL DEFAULT 0, requested_room TEXT);
                    CREATE TABLE action_sets (
                        id TEXT PRIMARY KEY NOT NULL, home_id TEXT NOT NULL REFERENCES homes(id) ON DELETE CASCADE,
                        name TEXT NOT NULL, last_executed REAL, position INTEGER NOT NULL);
                    CREATE TABLE actions (
                        action_set_id TEXT NOT NULL REFERENCES action_sets(id) ON DELETE CASCADE, position INTEGER NOT NULL,
                        accessory TEXT NOT NULL, service TEXT NOT NULL, characteristic TEXT NOT NULL, value TEXT NOT NULL,
                        PRIMARY KEY (action_set_id, position));
                    CREATE TABLE triggers (
                        id TEXT PRIMARY KEY NOT NULL, home_id TEXT NOT NULL REFERENCES homes(id) ON DELETE CASCADE,
                        name TEXT NOT NULL, enabled INTEGER NOT NULL, definition TEXT NOT NULL, position INTEGER NOT NULL);
                    CREATE TABLE trigger_action_sets (
                        trigger_id TEXT NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
                        action_set_id TEXT NOT NULL REFERENCES action_sets(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL, PRIMARY KEY (trigger_id, action_set_id));
                    CREATE INDEX trigger_action_sets_by_action_set ON trigger_action_sets(action_set_id);
                    CREATE TABLE trigger_states (
                        trigger_id TEXT PRIMARY KEY NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
                        last_fired REAL, since REAL NOT NULL);
                    CREATE TABLE held_deadlines (
                        trigger_id TEXT NOT NULL REFERENCES triggers(id) ON DELETE CASCADE, event_index INTEGER NOT NULL,
                        deadline REAL NOT NULL, PRIMARY KEY (trigger_id, event_index));
                    CREATE TABLE characteristic_values (
                        accessory TEXT NOT NULL, service TEXT NOT NULL, characteristic TEXT NOT NULL,
                        value TEXT NOT NULL, updated REAL NOT NULL,
                        PRIMARY KEY (accessory, service, characteristic)) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("2: action sets that recall a Zigbee2MQTT scene") { db in
            try db.execute(sql: "ALTER TABLE action_sets ADD COLUMN zigbee2mqtt_scene TEXT")
        }
        migrator.registerMigration("3: front ends' own state (the HomeKit bridge's keys, pairings and identifiers)") { db in
            try db.execute(sql: "CREATE TABLE adapter_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID")
        }
        // The lists the house is built from, not the accessories: the core builds the same
        // accessories (same ids, so the HomeKit bridge's numbers hold) from them with the mapping
        // files loaded now, and a list is what Zigbee2MQTT publishes, so it is compared as it comes.
        migrator.registerMigration("4: each Zigbee2MQTT bridge's last device and group lists") { db in
            try db.execute(
                sql: """
                    CREATE TABLE zigbee2mqtt_inventory (
                        base_topic TEXT PRIMARY KEY NOT NULL, devices TEXT NOT NULL, groups TEXT, updated REAL NOT NULL
                    ) WITHOUT ROWID
                    """)
        }
        migrator.registerMigration("5: the user's names for accessories' services (a tile renamed in the Home app)") { db in
            try db.execute(
                sql: """
                    CREATE TABLE service_names (
                        accessory TEXT NOT NULL REFERENCES accessories(id) ON DELETE CASCADE, service TEXT NOT NULL,
                        name TEXT NOT NULL, PRIMARY KEY (accessory, service)) WITHOUT ROWID
                    """)
        }
        return migrator
    }
}
