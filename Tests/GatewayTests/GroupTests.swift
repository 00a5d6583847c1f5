import Foundation
import HomeModel
import JSON
import Mappings
import Mosquitto
import MosquittoTesting
import Testing

@testable import Gateway
@testable import GatewayCore

@Suite("Zigbee2MQTT groups: one accessory for what the members share, written on the group's topic")
struct GroupTests {
    static func message(_ topic: String, _ payload: JSONValue) -> Incoming {
        Incoming(topic: topic, payload: payload.serializedBytes())
    }

    /// The core over the demo's devices, with `groups` as Zigbee2MQTT publishes them.
    static func core(groups: JSONValue) throws -> MQTTPipeline {
        var mappings = MappingSet()
        #expect(mappings.add(file: "z.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        var core = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        let devices = try JSONValue(parsing: Data(contentsOf: House.repository.appendingPathComponent("demo/devices.json")))
        _ = core.handleStored([
            message("zigbee2mqtt/bridge/state", ["state": "online"]), message("zigbee2mqtt/bridge/devices", devices),
            message("zigbee2mqtt/bridge/groups", groups),
        ])
        return core
    }

    static let groups: JSONValue = [
        [
            "id": 1, "friendly_name": "living_lights", "scenes": [],
            "members": [["ieee_address": "0x000b57fffec6a5b2", "endpoint": 1], ["ieee_address": "0x000b57fffec6a5b4", "endpoint": 11]],
        ],
        ["id": 2, "friendly_name": "empty", "members": [], "scenes": []],
        // A light and a plug share nothing a HomeKit service could control as one.
        [
            "id": 3, "friendly_name": "mixed", "scenes": [],
            "members": [["ieee_address": "0x000b57fffec6a5b2", "endpoint": 1], ["ieee_address": "0x0017880104e45524", "endpoint": 1]],
        ],
    ]

    @Test("a group of two lights is a lightbulb with what both have; writes go to the group's /set; its state is its own")
    func lights() throws {
        var core = try Self.core(groups: Self.groups)
        let group = try #require(core.core.accessories.first { $0.id == "living_lights" })
        #expect(group.bridge == "zigbee2mqtt" && group.manufacturer == "Zigbee2MQTT" && group.model == "Group")
        // The white bulb has no colour: the group has none either.
        #expect(group["lightbulb"]?.characteristics.map(\.name) == ["on", "brightness", "color_temperature"])
        #expect(!core.core.accessories.contains { $0.id == "empty" || $0.id == "mixed" })

        let write = core.handleStored([Self.message("homegate/set/living_lights/lightbulb/brightness", 40)])
        #expect(
            write.contains { $0.topic == "zigbee2mqtt/living_lights/set" && $0.text == #"{"brightness":102}"# }, "\(write.map(\.topic))")
        let state = core.handleStored([Self.message("zigbee2mqtt/living_lights", ["state": "ON", "brightness": 102, "color_temp": 300])])
        let event = try #require(state.first { $0.topic == "homegate/event/living_lights/lightbulb/brightness" })
        #expect(event.text.contains(#""source":"api""#) && event.text.contains(#""value":40"#), "\(event.text)")
        #expect(state.contains { $0.topic == "homegate/event/living_lights/lightbulb/on" })
    }

    @Test("a group is reachable while any member is; a group removed in Zigbee2MQTT goes")
    func reachability() throws {
        var core = try Self.core(groups: Self.groups)
        func reachable() -> Bool? { core.core.accessories.first { $0.id == "living_lights" }?.reachable }
        #expect(reachable() == true)
        _ = core.handleStored([Self.message("zigbee2mqtt/bulb/availability", ["state": "offline"])])
        #expect(reachable() == true)
        _ = core.handleStored([Self.message("zigbee2mqtt/bulb_color_2/availability", ["state": "offline"])])
        #expect(reachable() == false)
        _ = core.handleStored([Self.message("zigbee2mqtt/bulb/availability", ["state": "online"])])
        #expect(reachable() == true)

        let gone = core.handleStored([Self.message("zigbee2mqtt/bridge/groups", [])])
        #expect(reachable() == nil)
        #expect(gone.contains { $0.topic == "homegate/event/accessory/living_lights" && $0.text.contains(#""change":"removed""#) })
    }

    @Test("hide_members: the members are shown through the group alone, and their availability still counts for it")
    func hiddenMembers() throws {
        var mappings = MappingSet()
        #expect(
            mappings.add(
                file: "z.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\ndevices:\n  living_lights: { hide_members: true }\n"
            ).isEmpty)
        var core = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings))
        let devices = try JSONValue(parsing: Data(contentsOf: House.repository.appendingPathComponent("demo/devices.json")))
        _ = core.handleStored([
            Self.message("zigbee2mqtt/bridge/state", ["state": "online"]), Self.message("zigbee2mqtt/bridge/devices", devices),
            Self.message("zigbee2mqtt/bridge/groups", Self.groups),
        ])
        let ids = Set(core.core.accessories.map(\.id))
        #expect(ids.contains("living_lights") && !ids.contains("bulb") && !ids.contains("bulb_color_2"), "\(ids.sorted())")
        #expect(ids.contains("power_plug"), "a member of a group without hide_members stays")
        #expect(core.drainNotices().contains { $0.message.contains("bulb: shown through its group living_lights (hide_members)") })
        func reachable() -> Bool? { core.core.accessories.first { $0.id == "living_lights" }?.reachable }
        _ = core.handleStored([
            Self.message("zigbee2mqtt/bulb/availability", ["state": "offline"]),
            Self.message("zigbee2mqtt/bulb_color_2/availability", ["state": "offline"]),
        ])
        #expect(reachable() == false)
        _ = core.handleStored([Self.message("zigbee2mqtt/bulb_color_2/availability", ["state": "online"])])
        #expect(reachable() == true)
    }

    @Test("groups without anything to share are said once, with why")
    func skippedGroups() throws {
        var core = try Self.core(groups: Self.groups)
        let notices = core.drainNotices().map(\.message)
        #expect(notices.contains("no accessory for zigbee2mqtt group empty (id 2): it has no members"), "\(notices)")
        #expect(
            notices.contains(
                "no accessory for zigbee2mqtt group mixed (id 3): its members share no light, switch, cover, lock, thermostat or fan"))
        _ = core.handleStored([Self.message("zigbee2mqtt/bridge/groups", Self.groups)])
        #expect(!core.drainNotices().contains { $0.message.contains("(id 2)") })
    }

    @Test(
        "end to end: the demo's desk_lights group is one accessory; turning it off is one /set to the group, and both lamps follow",
        .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
    func endToEnd() async throws {
        let house = try await House(simulatorArguments: ["--groups", House.repository.appendingPathComponent("demo/groups.json").path])
        defer { house.stop() }
        let r = house.recorder
        let tree = try await r.wait(for: "homegate/accessories") {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "desk_lights" } == true
        }
        let group = tree["accessories"]?.arrayValue?.first { $0["id"] == "desk_lights" }
        #expect(group?["model"] == "Group" && group?["reachable"] == true)
        try await house.ok("characteristic/write", ["writes": [["characteristic": "desk_lights/lightbulb/on", "value": true]]])
        try await r.wait(for: "homegate/state/bulb_color_2") { $0["services"]?["lightbulb"]?["on"] == true }
        try await r.wait(for: "homegate/state/bulb") { $0["services"]?["lightbulb"]?["on"] == true }

        let mark = r.mark
        try await r.publish("homegate/set/desk_lights/lightbulb/on", "false")
        let event = try await r.wait(for: "homegate/event/desk_lights/lightbulb/on", after: mark) { $0["value"] == false }
        #expect(event["source"] == "api")
        try await r.wait(for: "homegate/event/bulb/lightbulb/on", after: mark) { $0["value"] == false && $0["source"] == "device" }
        try await r.wait(for: "homegate/event/bulb_color_2/lightbulb/on", after: mark) { $0["value"] == false }
        let sets = r.since(mark).filter { $0.topic.hasSuffix("/set") && $0.topic.hasPrefix("zigbee2mqtt/") }.map(\.topic)
        #expect(sets == ["zigbee2mqtt/desk_lights/set"], "one group command, not one per lamp: \(sets)")
    }
}
