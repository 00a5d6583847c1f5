import Foundation
import Gateway
import GatewayTesting
import JSON
import MosquittoTesting
import Testing

@Suite(
    "The device lists on a connection of their own (mqtt.lists_connection)", .enabled(if: TestBroker.isAvailable),
    .timeLimit(.minutes(2)))
struct ListsConnectionTests {
    @Test(
        "the house is built from a list heard on the second connection, a rename there lands, and health tells both connections; after a broker restart both are back"
    )
    func listsApart() async throws {
        let house = try await House(startGateway: false)
        defer { house.stop() }
        let gateway = try InProcessGateway(house: house, clock: ManualClock(amsterdam(20, 0))) { $0.mqtt.listsConnection = true }
        defer { Task { await gateway.stop() } }
        try await house.settled()
        let r = house.recorder
        let health = await gateway.gateway.access.health()
        #expect(health["ready"] == true && health["broker"] == "connected" && health["lists_connection"] == "connected", "\(health)")

        // Renamed in Zigbee2MQTT: the list comes on the second connection, the state under the new name on the first.
        var mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/device/rename", #"{"from":"bulb","to":"desk_lamp"}"#)
        try await r.wait(for: "zigbee2mqtt/bridge/devices", after: mark) {
            $0.arrayValue?.contains { $0["friendly_name"] == "desk_lamp" } == true
        }
        mark = r.mark
        try await r.publish("zigbee2mqtt/desk_lamp", #"{"state":"ON","brightness":77}"#)
        try await r.wait(for: "homegate/event/bulb/lightbulb/brightness", after: mark) { $0["value"] == 30 }  // 77 of 254

        // The broker goes and comes back: both connections are said to be down, then up again.
        house.broker.kill()
        var down = JSONValue.null
        for _ in 0..<200 {
            down = await gateway.gateway.access.health()
            if down["broker"] == "disconnected", down["lists_connection"] == "disconnected" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(down["ready"] == false && down["lists_connection"] == "disconnected", "\(down)")
        let problems = down["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(problems.contains { $0.hasPrefix("broker (the device lists' connection): ") }, "\(problems)")
        try house.broker.start()
        var up = JSONValue.null
        for _ in 0..<500 {
            up = await gateway.gateway.access.health()
            if up["ready"] == true, up["lists_connection"] == "connected" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(up["ready"] == true && up["lists_connection"] == "connected", "\(up)")

        // The list heard again on the second connection after the restart: a device renamed now lands too.
        mark = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/device/rename", #"{"from":"curtain","to":"blind"}"#)
        try await r.wait(for: "homegate/accessories", after: mark, timeout: .seconds(20)) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "curtain" && $0["name"]?.stringValue?.lowercased().contains("blind") == true } == true
        }
    }
}
