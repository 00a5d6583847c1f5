import Automation
import Foundation
import HomeModel
import JSON
import Mappings
import Mosquitto
import MosquittoTesting
import Persistence
import Testing

@testable import Gateway
@testable import GatewayCore

@Suite("Zigbee2MQTT scenes: action sets that recall what the devices keep, following the bridge")
struct SceneTests {
    static func message(_ topic: String, _ payload: JSONValue) -> Incoming {
        Incoming(topic: topic, payload: payload.serializedBytes())
    }

    static func group(_ id: Int, _ name: String, scenes: JSONValue) -> JSONValue {
        [
            "id": .integer(id), "friendly_name": .string(name), "scenes": scenes,
            "members": [["ieee_address": "0x000b57fffec6a5b2", "endpoint": 1], ["ieee_address": "0x000b57fffec6a5b4", "endpoint": 11]],
        ]
    }

    /// The demo's devices, with scenes on the colour bulb's two endpoints (1, and 2 called `l2`).
    static func devices() throws -> JSONValue {
        let demo = try JSONValue(parsing: Data(contentsOf: House.repository.appendingPathComponent("demo/devices.json")))
        return .array(
            demo.arrayValue!.map { device in
                guard device["friendly_name"] == "bulb_color_2", case .object(var fields) = device else { return device }
                fields["endpoints"] = [
                    "1": ["scenes": [["id": 1, "name": "Chill"]]],
                    "2": ["name": "l2", "scenes": [["id": 3, "name": "Night"]]],
                ]
                return .object(fields)
            })
    }

    static func core(groups: JSONValue?, stored: StoredHome? = nil) throws -> MQTTPipeline {
        var mappings = MappingSet()
        #expect(mappings.add(file: "z.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        var core = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings, stored: stored))
        var messages = [message("zigbee2mqtt/bridge/state", ["state": "online"]), message("zigbee2mqtt/bridge/devices", try devices())]
        if let groups { messages.append(message("zigbee2mqtt/bridge/groups", groups)) }
        _ = core.handleStored(messages)
        return core
    }

    /// Sends a request and returns its answer.
    static func request(_ core: inout MQTTPipeline, _ command: String, _ body: JSONValue = [:]) -> (answer: JSONValue, out: [Outgoing]) {
        let out = core.handleStored([message("homegate/request/\(command)", body)])
        let answer = out.first { $0.topic == "homegate/response/\(command)" }.flatMap { try? JSONValue(parsing: Array($0.text.utf8)) }
        return (answer ?? .null, out)
    }

    static func sets(_ core: inout MQTTPipeline) -> [JSONValue] {
        request(&core, "action_set/list").answer["data"]?["action_sets"]?.arrayValue ?? []
    }

    @Test("each scene of a group or device is an action set of its home; running it is one scene_recall on the topic that keeps it")
    func listAndRun() throws {
        var core = try Self.core(groups: [
            Self.group(1, "desk_lights", scenes: [["id": 1, "name": "Reading"], ["id": 2, "name": "Evening"]])
        ])
        let sets = Self.sets(&core)
        #expect(
            sets.map { $0["id"] } == ["bulb_color_2_scene_1", "bulb_color_2_scene_3_l2", "desk_lights_scene_1", "desk_lights_scene_2"],
            "\(sets)")
        #expect(sets.map { $0["name"] } == ["Chill", "Night", "Reading", "Evening"])
        #expect(
            sets[2] == [
                "id": "desk_lights_scene_1", "name": "Reading", "home": "home", "actions": [],
                "zigbee2mqtt_scene": ["accessory": "desk_lights", "scene": 1],
            ])
        #expect(sets[1]["zigbee2mqtt_scene"] == ["accessory": "bulb_color_2", "scene": 3, "endpoint": "l2"])

        let (answer, out) = Self.request(&core, "action_set/execute", ["action_set": "Reading"])
        #expect(answer["status"] == "ok", "\(answer)")
        #expect(answer["data"]?["results"] == [["zigbee2mqtt_scene": ["accessory": "desk_lights", "scene": 1], "status": "ok"]])
        let sent = out.filter { $0.topic.hasPrefix("zigbee2mqtt/") }
        #expect(sent.map(\.topic) == ["zigbee2mqtt/desk_lights/set"] && sent.first?.text == #"{"scene_recall":1}"#, "\(sent.map(\.topic))")
        #expect(out.contains { $0.topic == "homegate/event/action_set/desk_lights_scene_1" && $0.text.contains(#""change":"executed""#) })

        let night = Self.request(&core, "action_set/execute", ["action_set": "bulb_color_2_scene_3_l2"]).out
        #expect(night.contains { $0.topic == "zigbee2mqtt/bulb_color_2/l2/set" && $0.text == #"{"scene_recall":3}"# })

        // Unreachable: said in the result, nothing sent.
        _ = core.handleStored([Self.message("zigbee2mqtt/bulb_color_2/availability", ["state": "offline"])])
        let refused = Self.request(&core, "action_set/execute", ["action_set": "Chill"])
        #expect(refused.answer["status"] == "error" && refused.answer["error"] == "1 of 1 actions failed")
        #expect(refused.answer["data"]?["results"]?[0]?["error"] == "bulb_color_2: is not reachable")
        #expect(!refused.out.contains { $0.topic.hasPrefix("zigbee2mqtt/") })
    }

    @Test("a scene changes only in Zigbee2MQTT: update and remove are refused with why, its name is taken")
    func readOnly() throws {
        var core = try Self.core(groups: [Self.group(1, "desk_lights", scenes: [["id": 1, "name": "Reading"]])])
        let why =
            "action set 'Reading' is Zigbee2MQTT scene 1 of desk_lights: it changes only in Zigbee2MQTT "
            + "(scene_store, scene_rename, scene_remove on its /set topic), and follows from there"
        #expect(Self.request(&core, "action_set/update", ["action_set": "Reading", "name": "Study"]).answer["error"] == .string(why))
        #expect(Self.request(&core, "action_set/remove", ["action_set": "desk_lights_scene_1"]).answer["error"] == .string(why))
        #expect(Self.request(&core, "action_set/add", ["name": "reading"]).answer["status"] == "error")
        #expect(Self.sets(&core).map { $0["name"] } == ["Chill", "Night", "Reading"])
    }

    @Test(
        "scenes follow the bridge: added, renamed, removed (a trigger that ran one no longer does), and named apart when two share a name")
    func follow() throws {
        var core = try Self.core(groups: [Self.group(1, "desk_lights", scenes: [["id": 1, "name": "Reading"]])])
        _ = Self.request(
            &core, "trigger/add",
            [
                "name": "Dusk", "timer": ["recurrence": ["at": "18:00"]],
                "action_sets": ["Reading", "Chill"],
            ])
        #expect(
            Self.request(&core, "trigger/list").answer["data"]?["triggers"]?[0]?["action_sets"] == [
                "desk_lights_scene_1", "bulb_color_2_scene_1",
            ])

        // A user's "Focus", then a second group with a "Reading" and a "Focus" of the first: the scenes that
        // share a name say whose they are.
        #expect(Self.request(&core, "action_set/add", ["name": "Chill"]).answer["status"] == "error", "a scene's name is taken")
        #expect(Self.request(&core, "action_set/add", ["name": "Focus"]).answer["status"] == "ok")
        var out = core.handleStored([
            Self.message(
                "zigbee2mqtt/bridge/groups",
                [
                    Self.group(1, "desk_lights", scenes: [["id": 1, "name": "Reading"], ["id": 4, "name": "Focus"]]),
                    Self.group(2, "shelf_lights", scenes: [["id": 1, "name": "Reading"]]),
                ])
        ])
        #expect(
            Self.sets(&core).map { $0["name"] } == [
                "Chill", "Night", "Reading (desk_lights)", "Focus", "Focus (desk_lights)", "Reading (shelf_lights)",
            ])
        #expect(out.contains { $0.topic == "homegate/event/action_set/desk_lights_scene_1" && $0.text.contains(#""change":"updated""#) })
        #expect(out.contains { $0.topic == "homegate/event/action_set/desk_lights_scene_4" && $0.text.contains(#""change":"added""#) })
        #expect(
            core.drainNotices().contains {
                $0.message == "Zigbee2MQTT scene 4 of desk_lights is action set 'Focus (desk_lights)' (desk_lights_scene_4)"
            })

        // Removed in Zigbee2MQTT: the action set goes, and the trigger keeps only the other.
        out =
            core.handleStored([Self.message("zigbee2mqtt/bridge/groups", [Self.group(1, "desk_lights", scenes: [["id": 4, "name": "Focus"]])])])
        #expect(out.contains { $0.topic == "homegate/event/action_set/desk_lights_scene_1" && $0.text.contains(#""change":"removed""#) })
        #expect(Self.request(&core, "trigger/list").answer["data"]?["triggers"]?[0]?["action_sets"] == ["bulb_color_2_scene_1"])
        #expect(
            core.drainNotices().contains {
                $0.message == "Zigbee2MQTT scene 1 of desk_lights is gone; action set desk_lights_scene_1 removed"
            })
    }

    @Test("a scene goes with its accessory to another home; the old home's triggers no longer run it")
    func moves() throws {
        var core = try Self.core(groups: [Self.group(1, "desk_lights", scenes: [["id": 1, "name": "Reading"]])])
        #expect(
            Self.request(
                &core, "trigger/add",
                [
                    "name": "Dusk", "timer": ["recurrence": ["at": "18:00"]],
                    "action_sets": ["Reading", "Chill"],
                ]
            ).answer["status"] == "ok")
        #expect(Self.request(&core, "home/add", ["name": "Cabin"]).answer["status"] == "ok")
        let out = Self.request(&core, "accessory/assign_room", ["accessory": "desk_lights", "room": "default_room_2"]).out
        #expect(Self.sets(&core).map { $0["id"] } == ["bulb_color_2_scene_1", "bulb_color_2_scene_3_l2"])
        let cabin = Self.request(&core, "action_set/list", ["home": "cabin"]).answer["data"]?["action_sets"]
        #expect(cabin?[0]?["id"] == "desk_lights_scene_1" && cabin?[0]?["home"] == "cabin", "\(String(describing: cabin))")
        #expect(Self.request(&core, "trigger/list").answer["data"]?["triggers"]?[0]?["action_sets"] == ["bulb_color_2_scene_1"])
        #expect(out.contains { $0.topic == "homegate/event/trigger/dusk" && $0.text.contains(#""change":"updated""#) })
    }

    @Test("at start, a stored group scene waits for bridge/groups before it is judged gone; it keeps its id and last run")
    func startOrder() throws {
        let ran = Date(timeIntervalSince1970: 1_800_000_000)
        let stored = StoredHome(
            structure: .initial(),
            actionSets: [
                ActionSet(
                    id: "desk_lights_scene_1", name: "Reading", home: "home", lastExecuted: ran,
                    recall: SceneRecall(accessory: "desk_lights", scene: 1)),
                ActionSet(id: "desk_lights_scene_9", name: "Old", home: "home", recall: SceneRecall(accessory: "desk_lights", scene: 9)),
            ])
        var core = try Self.core(groups: nil, stored: stored)
        #expect(
            Self.sets(&core).map { $0["id"] } == [
                "desk_lights_scene_1", "desk_lights_scene_9", "bulb_color_2_scene_1", "bulb_color_2_scene_3_l2",
            ])
        _ = core.handleStored([Self.message("zigbee2mqtt/bridge/groups", [Self.group(1, "desk_lights", scenes: [["id": 1, "name": "Reading"]])])])
        let sets = Self.sets(&core)
        #expect(sets.map { $0["id"] } == ["desk_lights_scene_1", "bulb_color_2_scene_1", "bulb_color_2_scene_3_l2"])
        #expect(sets[0]["last_executed"] != nil)
    }

    @Test(
        "scenes are read where each Zigbee2MQTT version lists them: on the device (before 1.34) and per endpoint; a nameless one is 'Scene <id>'"
    )
    func parsing() throws {
        let old = try #require(
            Zigbee2MQTTDevice(json: [
                "ieee_address": "0x0000000000000001", "friendly_name": "a",
                "scenes": [["id": 7], ["id": 300, "name": "out of range"], ["name": "no id"]],
            ]))
        #expect(old.scenes == [Zigbee2MQTTScene(id: 7, name: "Scene 7")])
        let new = try #require(
            Zigbee2MQTTDevice(json: [
                "ieee_address": "0x0000000000000002", "friendly_name": "b",
                "endpoints": [
                    "11": ["scenes": [["id": 2, "name": ""]]], "2": ["scenes": [["id": 1, "name": "Up"]]], "10": ["scenes": "garbage"],
                ],
            ]))
        #expect(new.scenes == [Zigbee2MQTTScene(id: 1, name: "Up"), Zigbee2MQTTScene(id: 2, name: "Scene 2", endpoint: "11")])
    }

    @Test("export and import keep a scene's action set and the names given to services, and refuse an action set with actions of its own")
    func archive() throws {
        let set = ActionSet(
            id: "desk_lights_scene_1", name: "Reading", home: "home", recall: SceneRecall(accessory: "desk_lights", scene: 1))
        var structure = HomeStructure.initial()
        structure.place(accessory: "kitchen_wall_switch", requestedRoom: nil)
        structure.rename(service: "switch_l1", ofAccessory: "kitchen_wall_switch", to: "Counter lights")
        let text = HomeArchive.export(StoredHome(structure: structure, actionSets: [set]))
        #expect(text.contains("  zigbee2mqtt_scene: {accessory: desk_lights, scene: 1}\n"), "\(text)")
        let back = try HomeArchive.read(text, file: "home.yaml", timeZone: .gmt)
        #expect(back.actionSets == [set])
        #expect(back.structure.placements["kitchen_wall_switch"]?.serviceNames == ["switch_l1": "Counter lights"], "\(text)")

        let mixed = text.replacingOccurrences(of: "actions: []", with: "actions: [{characteristic: bulb/lightbulb/on, value: true}]")
        #expect(throws: ArchiveError.self) { try HomeArchive.read(mixed, file: "home.yaml", timeZone: .gmt) }
        let badID = text.replacingOccurrences(of: "scene: 1", with: "scene: 300")
        do {
            _ = try HomeArchive.read(badID, file: "home.yaml", timeZone: .gmt)
            Issue.record("a scene id of 300 was read")
        } catch {
            #expect(
                "\(error)".contains(
                    "action_sets[0].zigbee2mqtt_scene.scene: expected a Zigbee2MQTT scene id, a whole number from 0 to 255"), "\(error)")
        }
    }

    @Test(
        "end to end: run a group's scene and both lamps take it; a scene stored in Zigbee2MQTT appears, and a trigger keeps it across a restart",
        .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
    func endToEnd() async throws {
        let house = try await House(simulatorArguments: ["--groups", House.repository.appendingPathComponent("demo/groups.json").path])
        defer { house.stop() }
        let r = house.recorder
        try await r.wait(for: "homegate/event/action_set/desk_lights_scene_1")
        #expect(try await house.ok("action_set/list")["action_sets"]?.arrayValue?.map { $0["name"] } == ["Reading", "Evening"])

        var mark = r.mark
        let run = try await house.ok("action_set/execute", ["action_set": "Evening"])
        #expect(run["results"]?[0]?["status"] == "ok")
        #expect(try await r.wait(for: "zigbee2mqtt/desk_lights/set", after: mark) == ["scene_recall": 2])
        try await r.wait(for: "homegate/state/bulb") { $0["services"]?["lightbulb"]?["brightness"] == 24 }
        try await r.wait(for: "homegate/state/bulb_color_2") { $0["services"]?["lightbulb"]?["brightness"] == 24 }

        // Stored in Zigbee2MQTT (as its frontend does): the bridge republishes its groups, and the scene is an action set.
        mark = r.mark
        try await r.publish("zigbee2mqtt/desk_lights/set", #"{"scene_store":{"ID":5,"name":"Late"}}"#)
        let added = try await r.wait(for: "homegate/event/action_set/desk_lights_scene_5", after: mark)
        #expect(added["change"] == "added" && added["name"] == "Late")
        try await house.ok("trigger/add", ["name": "Bedtime", "timer": ["recurrence": ["at": "23:00"]], "action_sets": ["Late"]])

        mark = r.mark
        try await house.ok("action_set/execute", ["action_set": "Reading"])
        try await r.wait(for: "homegate/state/bulb", after: mark) { $0["services"]?["lightbulb"]?["brightness"] == 100 }

        house.stopGateway()
        mark = r.mark
        try house.startGateway()
        try await house.settled(after: mark)
        let triggers = try await house.ok("trigger/list")["triggers"]
        #expect(triggers?[0]?["action_sets"] == ["desk_lights_scene_5"], "\(String(describing: triggers))")
        mark = r.mark
        try await house.ok("action_set/execute", ["action_set": "Late"])
        #expect(try await r.wait(for: "zigbee2mqtt/desk_lights/set", after: mark) == ["scene_recall": 5])
        try await r.wait(for: "homegate/state/bulb", after: mark) { $0["services"]?["lightbulb"]?["brightness"] == 24 }
    }
}
