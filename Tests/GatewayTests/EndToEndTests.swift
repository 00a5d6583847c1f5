import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "The gateway end to end: real mosquitto, the simulator and homegate as processes",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct EndToEndTests {
    @Test("a device report becomes one event per changed characteristic and a retained state; unchanged values publish nothing")
    func stateInEventsOut() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish(
            "zigbee2mqtt/bridge/request/simulator/report", #"{"id":"weather_sensor","state":{"temperature":23.4,"humidity":51}}"#)
        let event = try await r.wait(for: "homegate/event/weather_sensor/temperature_sensor/current_temperature", after: mark) {
            $0["value"] == 23.4
        }
        #expect(event["accessory"] == "weather_sensor" && event["service"] == "temperature_sensor" && event["source"] == "device")
        #expect(event["previous"] != nil && event["time"]?.stringValue?.hasSuffix("Z") == true)
        let state = try await r.wait(for: "homegate/state/weather_sensor", after: mark) {
            $0["services"]?["temperature_sensor"]?["current_temperature"] == 23.4
        }
        #expect(state["reachable"] == true)
        let late = try await watcher(house.broker, "homegate/state/weather_sensor")
        let retained = await awaitMessages(late) { !$0.isEmpty }
        #expect(retained.first?.retain == true && retained.first?.payloadString.contains("23.4") == true, "the state is retained")
        await late.shutdown()

        let again = r.mark
        try await r.publish("zigbee2mqtt/bridge/request/simulator/report", #"{"id":"weather_sensor","state":{"temperature":23.4}}"#)
        try await r.wait(for: "zigbee2mqtt/weather_sensor", after: again)
        try await house.barrier()
        #expect(r.since(again).filter { $0.topic.hasPrefix("homegate/event/weather_sensor") }.isEmpty, "the same value again is no event")
    }

    @Test("homegate/set flips a light: one /set to the device, its echo is one event credited to the API, no second write")
    func setFlipsALight() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish("homegate/set/bulb/lightbulb/on", "true")
        try await r.wait(for: "zigbee2mqtt/bulb", after: mark) { $0["state"] == "ON" }
        let event = try await r.wait(for: "homegate/event/bulb/lightbulb/on", after: mark) { $0["value"] == true }
        #expect(event["source"] == "api")
        try await house.barrier()  // a second write would have gone out with the echo's event
        #expect(r.since(mark).filter { $0.topic == "zigbee2mqtt/bulb/set" }.count == 1)
        #expect(r.since(mark).filter { $0.topic == "homegate/event/bulb/lightbulb/on" }.count == 1)
    }

    @Test("a write request is answered per write with the transaction; on + brightness go out as one /set")
    func writeRequest() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish(
            "homegate/request/characteristic/write",
            """
            {"transaction":"t-1","writes":[
              {"accessory":"bulb","service":"lightbulb","characteristic":"on","value":true},
              {"accessory":"bulb","service":"lightbulb","characteristic":"brightness","value":100}]}
            """)
        let response = try await r.wait(for: "homegate/response/characteristic/write", after: mark)
        #expect(response["status"] == "ok" && response["transaction"] == "t-1")
        #expect(response["data"]?["results"]?.arrayValue?.compactMap { $0["status"]?.stringValue } == ["ok", "ok"])
        let set = try await r.wait(for: "zigbee2mqtt/bulb/set", after: mark)
        #expect(set == ["state": "ON", "brightness": 254])
        try await r.wait(for: "homegate/state/bulb", after: mark) { $0["services"]?["lightbulb"]?["brightness"] == 100 }
    }

    @Test("bad writes are refused with the reason, nothing reaches the device")
    func refusedWrites() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish(
            "homegate/request/characteristic/write",
            """
            {"transaction":2,"writes":[
              {"accessory":"bulb","service":"lightbulb","characteristic":"brightness","value":500},
              {"accessory":"weather_sensor","service":"temperature_sensor","characteristic":"current_temperature","value":5},
              {"accessory":"nobody","service":"lightbulb","characteristic":"on","value":true},
              {"accessory":"bulb","service":"lightbulb","characteristic":"on","value":"yes"},
              {"accessory":"bulb","service":"lightbulb"}]}
            """)
        let response = try await r.wait(for: "homegate/response/characteristic/write", after: mark)
        #expect(response["status"] == "error" && response["error"] == "5 of 5 writes failed" && response["transaction"] == 2)
        #expect(
            response["data"]?["results"]?.arrayValue?.compactMap { $0["error"]?.stringValue } == [
                "bulb/lightbulb/brightness: 500 is above the maximum 100",
                "weather_sensor/temperature_sensor/current_temperature: is read-only",
                "nobody: no such accessory",
                #"bulb/lightbulb/on: "yes" is not a bool"#,
                #"each write needs a value and either "characteristic": "accessory/service/characteristic" or accessory, service and characteristic"#,
            ])
        try await r.publish("homegate/request/characteristic/wrte", "{}")
        let unknown = try await r.wait(for: "homegate/response/characteristic/wrte", after: mark)
        #expect(unknown["error"] == "unknown command 'characteristic/wrte' (did you mean 'characteristic/write'?)")
        try await r.publish("homegate/request/characteristic/write", "{not json")
        let bad = try await r.wait(for: "homegate/response/characteristic/write", after: mark) {
            $0["error"]?.stringValue?.contains("not JSON") == true
        }
        #expect(bad["status"] == "error")
        try await house.barrier()
        #expect(r.since(mark).filter { $0.topic == "zigbee2mqtt/bulb/set" }.isEmpty)
    }

    @Test("a read request asks the device and answers with the fresh value")
    func readRequest() async throws {
        let house = try await House()
        defer { house.stop() }
        let r = house.recorder
        let mark = r.mark
        try await r.publish("zigbee2mqtt/bulb/set", #"{"brightness":127}"#)  // changed behind the gateway's back
        try await r.wait(for: "homegate/state/bulb", after: mark) { $0["services"]?["lightbulb"]?["brightness"] == 50 }
        let before = r.mark
        try await r.publish(
            "homegate/request/characteristic/read",
            #"{"transaction":9,"accessory":"bulb","service":"lightbulb","characteristic":"brightness"}"#)
        try await r.wait(for: "zigbee2mqtt/bulb/get", after: before)
        let response = try await r.wait(for: "homegate/response/characteristic/read", after: before)
        #expect(response["status"] == "ok" && response["transaction"] == 9)
        #expect(response["data"]?["value"] == 50 && response["data"]?["fresh"] == true)
    }
}
