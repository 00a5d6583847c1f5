import Foundation
import Mosquitto
import MosquittoTesting
import Testing

@Suite("homegate validate --coverage: HomeKit and Matter", .timeLimit(.minutes(2)))
struct ValidateCoverageTests {
    static let repository = ValidateCommandTests.repository

    @Test("over the device corpus: the share of exposes in HomeKit and in Matter, per kind and feature, and what Matter leaves out")
    func corpus() throws {
        let corpus = Self.repository.appendingPathComponent("Tests/MappingsTests/Fixtures/corpus/devices.json").path
        let (status, output) = try homegate(["validate", Self.repository.appendingPathComponent("mappings").path, "--devices", corpus, "--coverage"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("394 devices: "), "\(output)")
        #expect(output.contains("| exposes (a kind on a device) | count | HomeKit | Matter |"), "\(output)")
        #expect(output.contains("| `light` | 85 | 85 (100 %) | 85 (100 %) |"), "\(output)")
        #expect(output.contains("| `temperature` | 71 | 71 (100 %) | 71 (100 %) |"), "\(output)")
        #expect(output.contains("| `light brightness` |"), "\(output)")
        #expect(output.contains("| `stateless_programmable_switch` | `service_label_index` |"), "\(output)")
    }

    @Test("on the house: each bridge's device list from the broker, and the mapping files' own accessories", .enabled(if: TestBroker.isAvailable))
    func house() async throws {
        let broker = try TestBroker()
        let list = try Data(contentsOf: Self.repository.appendingPathComponent("Tests/MappingsTests/Fixtures/devices.json"))
        let client = try await watcher(broker, "unused")
        try await client.publishAndWait("zigbee2mqtt/bridge/devices", Array(list), qos: .atLeastOnce, retain: true)
        await client.shutdown()
        let environment = ["HOMEGATE_MQTT_URL": broker.url]
        let mappings = Self.repository.appendingPathComponent("demo/mappings").path
        let result = try await homegate(["validate", mappings, "--coverage", "--timeout", "3"], environment: environment)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("## zigbee2mqtt/bridge/devices"), "\(result.output)")
        #expect(result.output.contains("14 devices: "), "\(result.output)")
        #expect(result.output.contains("| `light` | 2 | 2 (100 %) | 2 (100 %) |"), "\(result.output)")
        #expect(result.output.contains("## MQTT accessories of the mapping files"), "\(result.output)")
        #expect(result.output.contains("| accessory | service | Matter device type |"), "\(result.output)")

        broker.stop()
        let away = try await homegate(["validate", mappings, "--coverage", "--timeout", "1"], environment: environment)
        #expect(away.status == 1, "\(away.output)")
    }
}
