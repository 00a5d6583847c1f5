import Foundation
import Gateway
import JSON
import Logging
import Testing

/// What a front end says of itself reaches the gateway's health report (`GatewayAccess.report`):
/// a gateway built but not started, so no broker is needed.
@Suite("A front end's section in the health report")
struct AdapterHealthTests {
    @Test("health: an adapter's section is added and its warnings go to `warnings`, not `problems`")
    func health() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-homekit-\(UUID().uuidString)")
        let mappings = folder.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = GatewayConfiguration()
        configuration.mqtt.url = "mqtt://127.0.0.1:1"
        configuration.mappings = mappings.path
        configuration.database = folder.appendingPathComponent("homegate.sqlite").path
        let gateway = try HomeGateway(configuration: configuration, logger: Logger(label: "test"))
        let before = await gateway.access.health()
        #expect(before["warnings"] == [] && before["homekit"] == nil)
        let line = "HomeKit bridge 1 is not advertised: avahi-daemon is not running; controllers that know its address can still pair"
        let section: JSONValue = ["bridges": [["number": 1, "advertisement": "not_advertised", "detail": "avahi-daemon is not running"]]]
        gateway.access.report("homekit", AdapterStatus(section: section, warnings: [line]))
        let after = await gateway.access.health()
        #expect(after["warnings"] == [.string(line)])
        #expect(after["homekit"] == section)
        #expect(after["problems"] == ["broker: not connected yet"])  // the broker's, not the bridge's
    }
}
