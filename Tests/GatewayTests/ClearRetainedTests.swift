import Foundation
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "homegate clear-retained: an uninstall leaves nothing of homegate's on the broker", .enabled(if: TestBroker.isAvailable),
    .timeLimit(.minutes(2)))
struct ClearRetainedTests {
    @Test("refused while homegate runs; stopped, --dry-run lists and keeps, then every retained message under homegate/ goes and no other")
    func clearRetained() async throws {
        let house = try await House()
        defer { house.stop() }
        let environment = ["HOMEGATE_MQTT_URL": house.broker.url]

        let running = try await homegate(["clear-retained"], environment: environment)
        #expect(running.status == 1)
        #expect(
            running.output.contains("a homegate on homegate is online (homegate/bridge/state says so); stop it first"), "\(running.output)")

        house.stopGateway()
        let dryRun = try await homegate(["clear-retained", "--dry-run"], environment: environment)
        #expect(dryRun.status == 0)
        for topic in ["homegate/accessories", "homegate/bridge/state", "homegate/state/bulb"] {
            #expect(dryRun.output.contains("would remove \(topic)\n"), "\(dryRun.output)")
        }
        #expect(dryRun.output.contains("under homegate/# would be removed (--dry-run: nothing was)"), "\(dryRun.output)")
        let listed = dryRun.output.split(separator: "\n").filter { $0.hasPrefix("would remove ") }.map {
            $0.dropFirst("would remove ".count)
        }

        let cleared = try await homegate(["clear-retained"], environment: environment)
        #expect(cleared.status == 0)
        let removed = cleared.output.split(separator: "\n").filter { $0.hasPrefix("removed ") }.map { $0.dropFirst("removed ".count) }
        #expect(removed == listed, "the dry run listed what a run removes")
        #expect(cleared.output.contains("\(listed.count) retained messages under homegate/# removed"), "\(cleared.output)")

        let again = try await homegate(["clear-retained"], environment: environment)
        #expect(again.status == 0)
        #expect(again.output == "no retained messages under homegate/# on \(house.broker.url)\n", "\(again.output)")

        // Zigbee2MQTT's own retained device list is not homegate's and stays.
        let z2m = try await watcher(house.broker, "zigbee2mqtt/bridge/devices")
        let devices = await awaitMessages(z2m) { !$0.isEmpty }
        await z2m.shutdown()
        #expect(devices.first?.retain == true)
    }

    @Test("a broker that cannot be reached is named, with exit status 1")
    func noBroker() async throws {
        let port = try freePort()
        let result = try await homegate(
            ["clear-retained", "--timeout", "1"], environment: ["HOMEGATE_MQTT_URL": "mqtt://127.0.0.1:\(port)"])
        #expect(result.status == 1)
        #expect(result.output.contains("homegate clear-retained: mqtt://127.0.0.1:\(port): "), "\(result.output)")
    }
}
