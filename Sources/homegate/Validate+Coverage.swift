import ArgumentParser
import Foundation
import Gateway
import HomeModel
import JSON
import Mappings
import MatterBridge
import Mosquitto

extension Validate {
    /// The Matter bridge as the coverage report counts it: a service's characteristics its endpoint carries.
    static let matter = Zigbee2MQTTCoverage.Bridge(name: "Matter") { BridgedCharacteristics($0)?.carried }

    /// `--coverage` without `--devices`: the house the configuration describes, each Zigbee2MQTT
    /// bridge's device list as the broker keeps it, and the mapping files' own accessories.
    func houseCoverage(_ set: MappingSet) async throws {
        let settings = try loadSettings(config)
        for source in set.zigbee2mqtt {
            let topic = "\(source.baseTopic)/bridge/devices"
            let heard: [UInt8]?
            do {
                heard = try await Self.retained(topic, settings: settings, seconds: timeout)
            } catch {
                printError("\(settings.mqtt.url): \(error); --devices takes a saved device list instead")
                throw ExitCode(1)
            }
            guard let payload = heard else {
                printError("\(topic): nothing within \(timeout) s (is Zigbee2MQTT running on \(settings.mqtt.url)?); --devices takes a saved list")
                throw ExitCode(1)
            }
            guard let list = Zigbee2MQTTDevice.list(parsing: payload) else {
                printError("\(topic): not a bridge/devices payload")
                throw ExitCode(1)
            }
            print("\n## \(topic)\n")
            print(Zigbee2MQTTCoverage(list, override: { source.override(for: $0) }, bridge: Self.matter).table)
        }
        guard !set.accessories.isEmpty else { return }
        print("\n## MQTT accessories of the mapping files\n")
        print(Self.accessoryTable(set.accessories.map(\.accessory)))
    }

    /// Each service of the accessories: its Matter device type and what it leaves out.
    static func accessoryTable(_ accessories: [Accessory]) -> String {
        var lines = ["| accessory | service | Matter device type | characteristics in Matter | left out |", "| --- | --- | --- | --- | --- |"]
        for accessory in accessories {
            for service in accessory.services where service.type != .service_label {
                let names = service.characteristics.map(\.name)
                guard let bridged = BridgedCharacteristics(service) else {
                    lines.append("| \(accessory.id) | \(service.id) | none | 0 of \(names.count) | \(names.joined(separator: ", ")) |")
                    continue
                }
                let type = "0x" + String(bridged.deviceType, radix: 16, uppercase: true).leftPadded(to: 4)
                let left = names.filter { !bridged.carried.contains($0) }
                lines.append(
                    "| \(accessory.id) | \(service.id) | \(type) | \(names.count - left.count) of \(names.count) | \(left.joined(separator: ", ")) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The retained message on `topic`, or nil when none came within `seconds`.
    static func retained(_ topic: String, settings: GatewayConfiguration, seconds: Double) async throws -> [UInt8]? {
        let client = try MQTTClient(settings.probeConfiguration(role: "validate"))
        try client.start()
        do {
            try await client.waitUntilConnected(timeout: .milliseconds(Int64(seconds * 1000)))
            try await client.subscribe(topic, qos: .atLeastOnce)
        } catch {
            await client.shutdown()
            throw error
        }
        let heard = await withTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                for await message in client.messages where message.topic == topic { return Array(message.payload) }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await client.shutdown()
        return heard
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
