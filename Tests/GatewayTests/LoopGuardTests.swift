import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite("Automations that undo each other through a device are stopped", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct LoopGuardTests {
    @Test("'on → run off' and 'off → run on' on one bulb: stopped within bounded fires, disabled, stored, logged once, announced")
    func loopStopped() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        try await house.ok("action_set/add", ["name": "Bulb Off", "actions": [["characteristic": "bulb/lightbulb/on", "value": false]]])
        try await house.ok("action_set/add", ["name": "Bulb On", "actions": [["characteristic": "bulb/lightbulb/on", "value": true]]])
        try await house.ok(
            "trigger/add",
            ["name": "On Means Off", "action_sets": ["bulb_off"], "events": [["characteristic": "bulb/lightbulb/on", "value": true]]])
        try await house.ok(
            "trigger/add",
            ["name": "Off Means On", "action_sets": ["bulb_on"], "events": [["characteristic": "bulb/lightbulb/on", "value": false]]])
        let mark = r.mark
        try await house.report("bulb", ["state": "ON"])

        let stopped = try await r.wait(for: "homegate/event/trigger/+", after: mark, timeout: .seconds(30)) { $0["reason"] == "loop" }
        #expect(stopped["change"] == "disabled")
        #expect(stopped["detail"]?.stringValue?.contains("more than 30 times within 10 s") == true, "\(stopped)")
        // Once one trigger is off, the device's next report fires nothing that writes back: the loop is over.
        let triggers = try await house.ok("trigger/list")["triggers"]?.arrayValue ?? []
        let disabled = triggers.filter { $0["enabled"] == false }.compactMap { $0["id"]?.stringValue }
        #expect(!disabled.isEmpty && Set(disabled).isSubset(of: ["on_means_off", "off_means_on"]), "\(triggers)")
        let fires = r.since(mark).filter {
            $0.topic.hasPrefix("homegate/event/trigger/") && $0.payloadString.contains(#""change":"fired""#)
        }
        #expect(fires.count <= 2 * 31 + 2, "\(fires.count) fires")
        #expect(house.gatewayLog.components(separatedBy: "automation loop stopped").count - 1 == 1)

        // Disabled is stored: a restarted gateway does not start the loop again.
        house.stopGateway()
        let restart = r.mark
        try house.startGateway()
        try await house.settled(after: restart)
        let after = try await house.ok("trigger/list")["triggers"]?.arrayValue ?? []
        #expect(Set(after.filter { $0["enabled"] == false }.compactMap { $0["id"]?.stringValue }) == Set(disabled))
    }
}
