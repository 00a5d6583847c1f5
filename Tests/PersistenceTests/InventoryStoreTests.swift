import Foundation
import GRDB
import GatewayCore
import JSON
import Persistence
import Testing

@Suite("The SQLite store keeps each Zigbee2MQTT bridge's last device and group lists")
struct InventoryStoreTests {
    static let devices: JSONValue = [
        ["ieee_address": "0x01", "friendly_name": "bulb", "definition": ["model": "LED1545G12", "exposes": [["type": "light"]]]],
        ["ieee_address": "0x02", "friendly_name": "plug ü", "supported": false],
    ]

    @Test("the lists written come back equal, by base topic; later ones replace them; nil forgets them; a whole-home replace keeps them")
    func roundTrip() async throws {
        let store = try SQLiteHomeStore(path: temporaryDatabase())
        try store.replaceAll(with: try sampleHome())
        var batch = StoreBatch()
        batch.inventories["zigbee2mqtt"] = StoredInventory(
            baseTopic: "zigbee2mqtt", devices: Self.devices, groups: [["id": 1, "friendly_name": "all"]])
        batch.inventories["garden"] = StoredInventory(baseTopic: "garden", devices: [], groups: nil)
        #expect(batch.hasStructure, "written promptly, as structure is")
        try await store.write(batch)
        var loaded = try #require(try store.load())
        #expect(loaded.inventories == [batch.inventories["garden"]!, batch.inventories["zigbee2mqtt"]!])

        var later = StoreBatch()
        later.inventories["zigbee2mqtt"] = StoredInventory(baseTopic: "zigbee2mqtt", devices: [], groups: [])
        later.inventories["garden"] = nil
        try await store.write(later)
        loaded = try #require(try store.load())
        #expect(loaded.inventories == [StoredInventory(baseTopic: "zigbee2mqtt", devices: [], groups: [])])

        try store.replaceAll(with: try sampleHome())
        #expect(try store.load()?.inventories.count == 1, "an import replaces the home, not what the bridges last said")
    }

    @Test("a list handed as text is stored as that text, and reads back as the same list")
    func text() async throws {
        let path = temporaryDatabase()
        let store = try SQLiteHomeStore(path: path)
        try store.replaceAll(with: try sampleHome())
        let devices = Self.devices.serializedBytes()
        var batch = StoreBatch()
        batch.inventories["zigbee2mqtt"] = StoredInventory(baseTopic: "zigbee2mqtt", devicesText: { devices }, groupsText: { nil })
        batch.inventories["garden"] = StoredInventory(
            baseTopic: "garden", devicesText: { Array("[]".utf8) }, groupsText: { Array(#"[{"friendly_name":"all","id":1}]"#.utf8) })
        try await store.write(batch)
        let loaded = try #require(try store.load())
        #expect(loaded.inventories.map(\.devices) == [[], Self.devices])
        #expect(loaded.inventories.map(\.groups) == [[["id": 1, "friendly_name": "all"]], nil])
        store.close()
        let rows = try DatabaseQueue(path: path).read {
            try Row.fetchAll($0, sql: "SELECT devices, typeof(devices) AS type, groups FROM zigbee2mqtt_inventory ORDER BY base_topic")
        }
        #expect(rows.map { $0["type"] as String } == ["text", "text"])
        #expect(rows.map { $0["devices"] as String } == ["[]", String(decoding: devices, as: UTF8.self)])
        #expect(rows.last?["groups"] as String? == nil)
    }

    @Test("a stored list that is not a JSON array is skipped and said, and the rest of the home loads")
    func unreadable() throws {
        let path = temporaryDatabase()
        let store = try SQLiteHomeStore(path: path)
        try store.replaceAll(with: try sampleHome())
        store.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "INSERT INTO zigbee2mqtt_inventory VALUES ('zigbee2mqtt', '{oops', NULL, 0)") }
        let again = try SQLiteHomeStore(path: path)
        let loaded = try #require(try again.load())
        #expect(loaded.inventories.isEmpty)
        #expect(loaded.skipped == ["the device list of Zigbee2MQTT bridge zigbee2mqtt cannot be read; its accessories wait for the broker"])
    }

    @Test("merged batches keep the later list, and a whole-home batch does not drop a list waiting to be written")
    func merging() {
        var first = StoreBatch()
        first.inventories["zigbee2mqtt"] = StoredInventory(baseTopic: "zigbee2mqtt", devices: Self.devices, groups: nil)
        var whole = StoreBatch()
        whole.replacesAll = true
        first.merge(whole)
        #expect(first.inventories["zigbee2mqtt"]?.devices == Self.devices)
        #expect(first.summary.contains("device lists of zigbee2mqtt"))
    }
}
