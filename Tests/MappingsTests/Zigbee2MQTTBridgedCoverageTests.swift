import HomeModel
import Testing

@testable import Mappings

@Suite("coverage with a bridge: how many exposes reach it, beside HomeKit, and what it leaves out")
struct Zigbee2MQTTBridgedCoverageTests {
    /// A bridge that carries a lightbulb's `on` and `brightness`, and nothing else.
    static let lampsOnly = Zigbee2MQTTCoverage.Bridge(name: "Test") { service in
        service.type == .lightbulb ? ["on", "brightness"] : nil
    }

    @Test("an expose reaches the bridge when a characteristic it feeds is carried; its features are counted each")
    func shares() throws {
        let devices = Zigbee2MQTTDevice.list(from: Fixture.devices)
        let report = Zigbee2MQTTCoverage(devices, bridge: Self.lampsOnly)
        #expect(report.rows["light"]?.devices == 2 && report.rows["light"]?.shown == 2 && report.rows["light"]?.bridged == 2)
        #expect(report.rows["temperature"]?.shown == 1 && report.rows["temperature"]?.bridged == 0)
        #expect(report.features["light brightness"]?.bridged == 2)
        let temperature = try #require(report.features["light color_temp"])
        #expect(temperature.shown == temperature.devices && temperature.bridged == 0)
        #expect(report.total.bridged == 2 && report.primary.bridged == 2)
        #expect(report.total.exposes > report.primary.exposes && report.total.shown > report.total.bridged)
        #expect(report.unbridgedServices["temperature_sensor"] == 1)
        #expect(report.leftOut["lightbulb color_temperature"] == 2)
        #expect(report.leftOut.keys.allSatisfy { $0.hasPrefix("lightbulb ") }, "only bridged services have characteristics left out")
        let table = report.table
        #expect(table.contains("| exposes (a kind on a device) | count | HomeKit | Test |"), "\(table)")
        #expect(table.contains("| `light` | 2 | 2 (100 %) | 2 (100 %) |"), "\(table)")
        #expect(table.contains("| `light brightness` | 2 | 2 (100 %) | 2 (100 %) |"), "\(table)")
        #expect(table.contains("| `lightbulb` | `color_temperature` | 2 |"), "\(table)")
        #expect(table.contains("Services Test has no device type for (how many): "), "\(table)")
    }

    @Test("without a bridge the report is HomeKit's alone, as before")
    func withoutBridge() {
        let report = Zigbee2MQTTCoverage(Zigbee2MQTTDevice.list(from: Fixture.devices))
        #expect(report.bridge == nil && report.leftOut.isEmpty && report.rows["light"]?.bridged == 0)
        #expect(report.table.contains("| expose | devices | shown | not shown, and why |"))
    }
}
