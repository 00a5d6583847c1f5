import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite("Every change is credited to its writer, whole numbers included", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct SourceAttributionTests {
    static let setpoint = "homegate/event/bosch_radiator/thermostat/target_temperature"

    @Test(
        "a decimal setpoint written as 23, 21.0 or 23.5 (echoed by the device as 23, 21, 23.5) is credited to the API; an action set's 22 to it"
    )
    func wholeNumbers() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        for (written, echoed) in [("23", 23.0), ("21.0", 21.0), ("23.5", 23.5)] {
            let mark = r.mark
            try await r.publish("homegate/set/bosch_radiator/thermostat/target_temperature", written)
            let event = try await r.wait(for: Self.setpoint, after: mark) { $0["value"]?.doubleValue == echoed }
            #expect(event["source"] == "api", "\(written): \(event)")
        }
        try await house.ok(
            "action_set/add",
            ["name": "Warm", "actions": [["characteristic": "bosch_radiator/thermostat/target_temperature", "value": 22]]])
        let mark = r.mark
        try await house.ok("action_set/execute", ["action_set": "warm"])
        let event = try await r.wait(for: Self.setpoint, after: mark) { $0["value"]?.doubleValue == 22 }
        #expect(event["source"] == "action_set:warm", "\(event)")
    }

    @Test("two writes to one characteristic in one moment: each echo is credited to its writer")
    func twoWritesAtOnce() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish(
            "homegate/request/characteristic/write",
            #"{"writes":[{"accessory":"bosch_radiator","service":"thermostat","characteristic":"target_temperature","value":19}]}"#)
        try await house.ok(
            "action_set/add",
            ["name": "Cool", "actions": [["characteristic": "bosch_radiator/thermostat/target_temperature", "value": 18]]])
        try await house.ok("action_set/execute", ["action_set": "cool"])
        let first = try await r.wait(for: Self.setpoint, after: mark) { $0["value"]?.doubleValue == 19 }
        let second = try await r.wait(for: Self.setpoint, after: mark) { $0["value"]?.doubleValue == 18 }
        #expect(first["source"] == "api" && second["source"] == "action_set:cool", "\(first) \(second)")
    }
}
