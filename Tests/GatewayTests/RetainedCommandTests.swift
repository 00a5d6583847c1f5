import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "Retained writes and requests never act: not live, not replayed at a reconnect or a restart",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct RetainedCommandTests {
    @Test("a retained room/add is answered with why and adds nothing; a retained /set writes nothing; both again after a restart")
    func retainedCommandsNeverAct() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.client.publishAndWait(
            "homegate/request/room/add", Array(#"{"transaction":"kept","name":"Retained Room"}"#.utf8),
            qos: .atLeastOnce, retain: true)
        let refused = try await r.wait(for: "homegate/response/room/add", after: mark) { $0["transaction"] == "kept" }
        #expect(refused["status"] == "error")
        #expect(refused["error"]?.stringValue?.contains("published retained") == true, "\(refused)")
        #expect(refused["error"]?.stringValue?.contains("mosquitto_pub -r -n -t 'homegate/request/room/add'") == true)

        // A retained write, then a live one: the live one's /set is the first and only write to the bulb.
        try await r.client.publishAndWait("homegate/set/bulb/lightbulb/brightness", Array("13".utf8), qos: .atLeastOnce, retain: true)
        try await r.publish("homegate/set/bulb/lightbulb/brightness", "42")
        try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark) { $0["brightness"] != nil }
        let writes = r.since(mark).filter { $0.topic == "zigbee2mqtt/bulb/set" }.map(\.payloadString)
        #expect(writes.count == 1 && !writes[0].contains("33"), "\(writes)")  // 13 % of 254 is 33
        #expect(try await house.ok("room/list")["rooms"]?.arrayValue?.contains { $0["name"] == "Retained Room" } == false)

        // A new gateway gets both replayed by the broker: the request is refused again, the write not made.
        house.stopGateway()
        let restart = r.mark
        try house.startGateway()
        try await house.settled(after: restart)
        let replayed = try await r.wait(for: "homegate/response/room/add", after: restart) { $0["transaction"] == "kept" }
        #expect(replayed["status"] == "error")
        try await r.publish("homegate/set/bulb/lightbulb/brightness", "43")
        try await r.wait(for: "zigbee2mqtt/bulb/set", after: restart) { $0["brightness"] != nil }
        let after = r.since(restart).filter { $0.topic == "zigbee2mqtt/bulb/set" }.map(\.payloadString)
        #expect(after.count == 1 && !after[0].contains("33"), "\(after)")
        #expect(try await house.ok("room/list")["rooms"]?.arrayValue?.contains { $0["name"] == "Retained Room" } == false)
        #expect(house.gatewayLog.contains("homegate/set/bulb/lightbulb/brightness was published retained"))

        // Clearing them as the refusal says (an empty retained message, delivered live with its
        // retain flag) is no command: nothing answered, nothing counted.
        let counted = try await house.ok("health")["counters"]?["retained_commands"]
        let cleared = r.mark
        try await r.client.publishAndWait("homegate/request/room/add", [], qos: .atLeastOnce, retain: true)
        try await r.client.publishAndWait("homegate/set/bulb/lightbulb/brightness", [], qos: .atLeastOnce, retain: true)
        try await house.barrier()
        #expect(r.since(cleared).filter { $0.topic == "homegate/response/room/add" }.isEmpty, "\(r.since(cleared).map(\.topic))")
        #expect(try await house.ok("health")["counters"]?["retained_commands"] == counted)
    }
}
