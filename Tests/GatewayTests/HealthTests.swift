import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite("homegate health: ready, not ready and why, or no answer", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct HealthTests {
    @Test("a broken mapping file makes it not ready with the file named; fixed, it is ready; stopped, there is no answer")
    func health() async throws {
        let shipped = House.repository.appendingPathComponent("demo/mappings")
        let garage = try String(contentsOf: shipped.appendingPathComponent("garage.yaml"), encoding: .utf8)
        let house = try await House(mappings: [
            "zigbee2mqtt.yaml": try String(contentsOf: shipped.appendingPathComponent("zigbee2mqtt.yaml"), encoding: .utf8),
            "garage.yaml": "source: mqtt\n  bad: [",
        ])
        defer { house.stop() }
        let environment = ["HOMEGATE_MQTT_URL": house.broker.url]
        let broken = try await homegate(["health"], environment: environment)
        #expect(broken.status == 1)
        #expect(
            broken.output.hasPrefix("not ready: mapping file ") && broken.output.contains("garage.yaml has problems; it is left out"),
            "\(broken.output)")

        let mark = house.recorder.mark
        try garage.write(to: house.mappings.appendingPathComponent("garage.yaml"), atomically: true, encoding: .utf8)
        try await house.recorder.wait(for: "homegate/event/mapping_file/garage.yaml", after: mark) { $0["change"] == "fixed" }
        let ready = try await homegate(["health"], environment: environment)
        #expect(ready.status == 0)
        #expect(ready.output == "ready: broker connected, database ok, 2 mapping files loaded\n", "\(ready.output)")

        house.stopGateway()
        let gone = try await homegate(["health", "--timeout", "1"], environment: environment)
        #expect(gone.status == 2)
        #expect(gone.output.contains("no answer: homegate did not answer on homegate/request/health within 1.0 s"), "\(gone.output)")
    }
}
