import Foundation
import HomeModel
import JSON
import Mappings
import Testing

import Gateway

@testable import GatewayCore

/// A bridge's device list on a connection of its own (`mqtt.lists_connection`): what comes on the
/// main connection around a list may be read before or after it, and must land as it would in order.
@Suite("Device lists apart from the readings")
struct ListsApartTests {
    /// The demo's list with `name` renamed to `new`.
    static func renaming(_ names: [String: String]) throws -> JSONValue {
        var devices = try TestHome.demoDevices()
        for i in devices.indices {
            guard let name = devices[i]["friendly_name"]?.stringValue, let new = names[name] else { continue }
            var fields = try #require(devices[i].objectValue)
            fields["friendly_name"] = .string(new)
            devices[i] = .object(fields)
        }
        return .array(devices)
    }

    static func renaming(_ name: String, to new: String) throws -> JSONValue { try renaming([name: new]) }

    @Test("a report under a device's new name read before the list that renamed it lands once the list is read")
    func newNameBeforeList() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/desk_lamp", ["state": "ON", "brightness": 120])
        #expect(home.value("bulb/lightbulb/on") != .bool(true), "no device is called desk_lamp yet")
        home.device("zigbee2mqtt/bridge/devices", try Self.renaming("bulb", to: "desk_lamp"))
        #expect(home.value("bulb/lightbulb/on") == .bool(true), "the report waited for the list")
        #expect(home.changes.contains { $0.accessory == "bulb" && $0.characteristic == "on" })
    }

    @Test("a report under a device's old name read after the list that renamed it lands on its accessory")
    func oldNameAfterList() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/bridge/devices", try Self.renaming("bulb", to: "desk_lamp"))
        home.device("zigbee2mqtt/bulb", ["state": "ON"])
        #expect(home.value("bulb/lightbulb/on") == .bool(true))
        // Only the last list's renames: the next change forgets it.
        home.device("zigbee2mqtt/bridge/devices", try Self.renaming(["bulb": "desk_lamp", "curtain": "blind"]))
        home.device("zigbee2mqtt/bulb", ["state": "OFF"])
        #expect(home.value("bulb/lightbulb/on") == .bool(true))
    }

    @Test("availability under a new name read before the list waits for it too; what no list names is let go")
    func availabilityWaits() throws {
        var home = try TestHome()
        home.device("zigbee2mqtt/desk_lamp/availability", ["state": "offline"])
        home.device("zigbee2mqtt/nobody", ["state": "ON"])
        home.device("zigbee2mqtt/bridge/devices", try Self.renaming("bulb", to: "desk_lamp"))
        #expect(home.core.accessory("bulb")?.reachable == false)
        #expect(home.core.accessory("bulb")?.unreachableReason?.contains("offline") == true)
        #expect(home.core.bridges["zigbee2mqtt"]?.waiting.isEmpty == true, "nobody's report is let go")
    }

    @Test("a rename among a thousand devices changes that accessory alone: every other keeps its values and reachability")
    func renameAmongMany() throws {
        var home = try TestHome()
        var devices = try TestHome.demoDevices()
        for n in 0..<1_000 {
            devices.append(try TestHome.copy(of: "weather_sensor", as: "sensor_\(n)", address: String(format: "0x%016x", 0xA000 + n)))
        }
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        for n in stride(from: 0, to: 1_000, by: 7) { home.device("zigbee2mqtt/sensor_\(n)", ["temperature": .double(20 + Double(n % 10))]) }
        home.device("zigbee2mqtt/sensor_3/availability", ["state": "offline"])
        let before = home.core.accessories
        let at = try #require(devices.firstIndex { $0["friendly_name"] == "sensor_500" })
        var fields = try #require(devices[at].objectValue)
        fields["friendly_name"] = "attic"
        devices[at] = .object(fields)
        home.device("zigbee2mqtt/bridge/devices", .array(devices))
        let after = home.core.accessories
        #expect(after.map(\.id) == before.map(\.id), "the same accessories in the same order")
        let changed = zip(before, after).filter { $0 != $1 }.map(\.1.id)
        #expect(changed == ["sensor_500"], "\(changed)")
        #expect(home.core.accessory("sensor_3")?.reachable == false)
        let states = home.effects.compactMap { if case .stateChanged(let id) = $0 { id } else { nil } }
        #expect(states == ["sensor_500"], "\(states)")
        home.device("zigbee2mqtt/attic", ["temperature": 31.5])
        #expect(home.value("sensor_500/temperature_sensor/current_temperature") == .float(31.5))
    }

    @Test("the main connection hears every topic of a bridge but its device list; the list comes on the other")
    func subscriptions() throws {
        var mappings = MappingSet()
        #expect(mappings.add(file: "z.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        var pipeline = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        #expect(pipeline.subscriptions.contains("zigbee2mqtt/#") && pipeline.listSubscriptions.isEmpty)
        var devices = try TestHome.demoDevices()
        devices.append(try TestHome.copy(of: "bulb", as: "kitchen/ceiling", address: "0x00000000000c0c1"))
        _ = pipeline.handleStored([
            Incoming(topic: "zigbee2mqtt/bridge/devices", payload: JSONValue.array(devices).serializedBytes(), retained: true)
        ])
        pipeline.listsApart = true
        let main = pipeline.subscriptions
        let heard = { (topic: String) in main.contains { Self.matches($0, topic) } }
        for topic in [
            "zigbee2mqtt/bulb", "zigbee2mqtt/bulb/availability", "zigbee2mqtt/bridge/state", "zigbee2mqtt/bridge/groups",
            "zigbee2mqtt/kitchen/ceiling", "zigbee2mqtt/kitchen/ceiling/availability", "homegate/set/bulb/lightbulb/on",
        ] {
            #expect(heard(topic), "\(topic) in \(main.sorted())")
        }
        #expect(!heard("zigbee2mqtt/bridge/devices"), "\(main.sorted())")
        #expect(pipeline.listSubscriptions == ["zigbee2mqtt/bridge/devices"])
    }

    static func matches(_ filter: String, _ topic: String) -> Bool {
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in f.enumerated() {
            if level == "#" { return true }
            guard index < t.count, level == "+" || level == t[index] else { return false }
        }
        return f.count == t.count
    }
}
