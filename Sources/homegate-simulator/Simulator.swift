import ArgumentParser
import Foundation
import JSON
import Logging
import Mosquitto
import Simulator

@main
struct SimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homegate-simulator",
        abstract: "A Zigbee2MQTT bridge without a radio: devices, states, availability, /set echoes, joins and renames.",
        discussion: """
            Commands on <base>/bridge/request/...: device/rename {"from","to"}, device/remove {"id"},
            simulator/add {"model","friendly_name"}, simulator/availability {"id","state":"offline"},
            simulator/bridge_state {"state":"offline"}, simulator/action {"id","action"},
            simulator/report {"id","state":{...}}. Scenes on a device's or group's /set: scene_store
            {"ID","name"}, scene_recall <id>, scene_remove <id>; a scene in the --devices or --groups file
            may carry a "state" to recall from the start.
            """
    )

    @Option(help: "The broker.") var url = "mqtt://127.0.0.1:1883"
    @Option(help: "Zigbee2MQTT's base topic.") var baseTopic = "zigbee2mqtt"
    @Option(help: "A bridge/devices payload (a JSON array) to serve.") var devices = "demo/devices.json"
    @Option(help: "Serve this many devices cloned from the file instead of the file's own.") var generate: Int?
    @Option(help: "A bridge/groups payload (a JSON array of groups with members by IEEE address) to serve.") var groups: String?
    @Option(help: "Seconds between two readings of the same sensor (0 for none).") var sensorInterval = 30.0
    @Option(help: "Device messages per second in total, overriding --sensor-interval (load tests); 0 for none.") var rate: Double?
    @Option(help: "Devices that report only when told to (zigbee2mqtt/bridge/request/simulator/report), comma separated.")
    var still = ""

    func validate() throws {
        if let rate, !(rate >= 0 && rate.isFinite) { throw ValidationError("--rate: expected messages per second, 0 or more, got \(rate)") }
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "homegate-simulator")
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: devices))
        } catch {
            throw ValidationError("cannot read the devices file '\(devices)'")
        }
        guard case .array(var entries) = try JSONValue(parsing: [UInt8](data)) else {
            throw ValidationError("\(devices): expected a JSON array like Zigbee2MQTT's bridge/devices payload")
        }
        if let generate { entries = SimulatedBridge.generated(count: generate, from: entries) }
        var groupEntries: [JSONValue] = []
        if let groups {
            guard let data = FileManager.default.contents(atPath: groups), case .array(let list) = try JSONValue(parsing: [UInt8](data))
            else {
                throw ValidationError("\(groups): expected a JSON array like Zigbee2MQTT's bridge/groups payload")
            }
            groupEntries = list
        }
        var bridge = SimulatedBridge(baseTopic: baseTopic, devices: entries, groups: groupEntries)
        bridge.still = Set(still.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
        let service = SimulatorService(
            bridge: bridge,
            client: MQTTConfiguration(
                broker: try BrokerAddress(url: url), clientID: "homegate-simulator-\(UInt16.random(in: 0...UInt16.max))"),
            sensorInterval: sensorInterval > 0 ? sensorInterval : nil, rate: rate, logger: logger)
        try await service.run()
    }
}
