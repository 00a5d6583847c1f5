import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite("One broken mapping file never takes the house down", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct BrokenMappingTests {
    @Test("a gateway started with a broken file runs with the others, says which is broken, applies edits elsewhere, and picks up the fix")
    func startsWithoutTheBrokenFile() async throws {
        let shipped = House.repository.appendingPathComponent("demo/mappings")
        var files: [String: String] = [:]
        for name in ["zigbee2mqtt.yaml", "plugs.yaml", "dimmer.yaml"] {
            files[name] = try String(contentsOf: shipped.appendingPathComponent(name), encoding: .utf8)
        }
        let garage = try String(contentsOf: shipped.appendingPathComponent("garage.yaml"), encoding: .utf8)
        files["garage.yaml"] = garage.replacingOccurrences(of: "source: mqtt", with: "source: mqtt\n  bad: [")
        let house = try await House(mappings: files)
        defer { house.stop() }
        let r = house.recorder
        #expect(house.gatewayIsRunning)
        let event = try await r.wait(for: "homegate/event/mapping_file/garage.yaml") { $0["change"] == "broken" }
        #expect(event["errors"]?.arrayValue?.first?.stringValue?.contains("garage.yaml:") == true, "\(event)")
        #expect(house.gatewayLog.contains("garage.yaml has 1 problem; it is left out"))

        // An edit in another file applies while garage.yaml is still broken.
        var mark = r.mark
        let plugs = house.mappings.appendingPathComponent("plugs.yaml")
        try files["plugs.yaml"]!.replacingOccurrences(of: "name: TV", with: "name: Television").write(
            to: plugs, atomically: true, encoding: .utf8)
        try await r.wait(for: "homegate/accessories", after: mark) {
            $0["accessories"]?.arrayValue?.contains { $0["name"] == "Television" } == true
        }

        // The fix is picked up: the garage door appears.
        mark = r.mark
        try garage.write(to: house.mappings.appendingPathComponent("garage.yaml"), atomically: true, encoding: .utf8)
        try await r.wait(for: "homegate/event/mapping_file/garage.yaml", after: mark) { $0["change"] == "fixed" }
        try await r.wait(for: "homegate/accessories", after: mark) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "garage_door" } == true
        }

        // A half-saved edit keeps the file's last good version: the garage door stays.
        mark = r.mark
        try "source: mqtt\naccessories:\n  - id: garage_door\n    services: [".write(
            to: house.mappings.appendingPathComponent("garage.yaml"), atomically: true, encoding: .utf8)
        let again = try await r.wait(for: "homegate/event/mapping_file/garage.yaml", after: mark) { $0["change"] == "broken" }
        #expect(again["kept_previous"] == true)
        #expect(r.since(mark).filter { $0.topic == "homegate/accessories" }.isEmpty, "nothing was taken away")
        #expect(try await house.ok("accessories")["accessories"]?.arrayValue?.contains { $0["id"] == "garage_door" } == true)
    }
}
