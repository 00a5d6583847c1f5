import Foundation
import Gateway
import Mappings
import Synchronization

extension FuzzTarget {
    /// Every command the core answers, in a fixed order so a corpus file's first byte keeps naming
    /// the same command: a new command goes at the end (a test checks the list is complete).
    public static let requestCommands = [
        "characteristic/write", "characteristic/read", "accessories",
        "home/list", "home/add", "home/rename", "home/set_primary", "home/remove",
        "room/list", "room/add", "room/rename", "room/remove",
        "zone/list", "zone/add", "zone/rename", "zone/remove", "zone/add_room", "zone/remove_room",
        "accessory/assign_room", "accessory/rename",
        "action_set/list", "action_set/add", "action_set/update", "action_set/remove", "action_set/execute",
        "trigger/list", "trigger/add", "trigger/update", "trigger/enable", "trigger/remove",
        "accessory/identify", "accessory/rename_service",
    ]

    /// The byte that selects `command` in a `request` input.
    public static func requestSelector(_ command: String) -> UInt8? {
        requestCommands.firstIndex(of: command).map(UInt8.init)
    }

    static let requestTime = Date(timeIntervalSince1970: 1_795_000_000)

    /// The gateway every input starts from, built at the first and released when the process exits.
    /// Released, not left to the end: LeakSanitizer's check at exit cannot follow every reference a
    /// Swift value holds (a multi-payload enum keeps its case in the reference's spare bits, as
    /// the core's entry of an explicit accessory keeps its mapping), so a core still alive then
    /// was reported as 272 bytes leaked, and written as a crash for the empty input.
    private static let requestCoreKept = Mutex<MQTTPipeline?>(nil)

    /// A copy of the gateway every input starts from.
    static var requestCore: MQTTPipeline {
        requestCoreKept.withLock { kept in
            if let core = kept { return core }
            let core = buildRequestCore()
            kept = core
            atexit { FuzzTarget.requestCoreKept.withLock { $0 = nil } }
            return core
        }
    }

    /// A gateway with the fixture's devices, an MQTT dimmer, a room, an action set and a trigger:
    /// enough for every command to find what it names. Each input gets its own copy.
    private static func buildRequestCore() -> MQTTPipeline {
        var mappings = MappingSet()
        var problems = mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n")
        problems += mappings.add(
            file: "dimmer.yaml",
            text: """
                source: mqtt
                accessories:
                  - id: hallway_dimmer
                    name: Hallway Dimmer
                    services:
                      - type: lightbulb
                        characteristics:
                          "on":
                            state: { topic: dimmer/status, path: ison }
                            set: { topic: dimmer/set, template: '{"turn":"{{value}}"}', map: { "true": "on", "false": "off" } }
                          brightness:
                            state: { topic: dimmer/status, path: brightness, scale: { from: [0, 255], to: [0, 100] }, round: 0 }
                """)
        precondition(problems.isEmpty, "the request target's mappings: \(problems)")
        var core = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings, now: requestTime))
        let setup: [(String, String)] = [
            ("zigbee2mqtt/bridge/state", #"{"state":"online"}"#),
            ("homegate/request/room/add", #"{"name":"Attic"}"#),
            ("homegate/request/zone/add", #"{"name":"Upstairs","rooms":["attic"]}"#),
            (
                "homegate/request/action_set/add",
                #"{"name":"Hallway On","actions":[{"characteristic":"bulb/lightbulb/on","value":true},{"characteristic":"bulb/lightbulb/brightness","value":80}]}"#
            ),
            ("homegate/request/trigger/add", #"{"name":"Good night","action_sets":["hallway_on"],"timer":{"recurrence":{"at":"22:30"}}}"#),
            (
                "homegate/request/trigger/add",
                #"{"name":"Motion","action_sets":["hallway_on"],"events":[{"characteristic":"occupancy_sensor/motion_sensor/motion_detected","value":true}]}"#
            ),
        ]
        let messages =
            [Incoming(topic: "zigbee2mqtt/bridge/devices", payload: fixtureDevicesPayload)]
            + setup.map { Incoming(topic: $0.0, payload: Array($0.1.utf8)) }
        let answers = core.handleStored(messages, now: requestTime).filter { $0.topic.hasPrefix("homegate/response/") }
        let refused = answers.filter { !String(decoding: $0.payload, as: UTF8.self).contains(#""status":"ok""#) }
        precondition(answers.count == setup.count - 1 && refused.isEmpty, "the request target's setup was refused: \(refused.map(\.topic))")
        _ = core.drainNotices()
        return core
    }

    static func request(_ bytes: [UInt8]) -> String? {
        guard let selector = bytes.first else { return nil }
        let command = requestCommands[Int(selector) % requestCommands.count]
        var core = requestCore
        _ = core.handleStored([Incoming(topic: "homegate/request/\(command)", payload: Array(bytes.dropFirst()))], now: requestTime)
        return nil
    }
}
