import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "Requests: unknown fields refused, the path form accepted, unreachable devices answered at once",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct RequestShapeTests {
    @Test("accessories, characteristic/read and each characteristic/write entry refuse fields they do not take")
    func unknownFields() async throws {
        let house = try await House()
        defer { house.stop() }
        #expect(try await house.refused("accessories", ["foo": 1]).contains("unknown field \"foo\"; this command takes no fields"))
        let read = try await house.refused(
            "characteristic/read", ["accessory": "bulb", "service": "lightbulb", "characteristic": "on", "transactoin": 1])
        #expect(read.contains("unknown field \"transactoin\""), "\(read)")
        let write = try await house.request(
            "characteristic/write",
            [
                "writes": [
                    [
                        "accessory": "bulb", "service": "lightbulb", "characteristic": "on",
                        "value": true, "valeu": false,
                    ]
                ]
            ])
        #expect(write["status"] == "error")
        #expect(
            write["data"]?["results"]?[0]?["error"]?.stringValue?.contains("unknown field \"valeu\" (did you mean 'value'?)") == true,
            "\(write)")
        // A lone write's failure is the answer's error, not "1 of 1 writes failed".
        #expect(write["error"] == write["data"]?["results"]?[0]?["error"], "\(write)")
    }

    @Test("characteristic/write takes \"characteristic\": \"accessory/service/characteristic\" as action sets do")
    func pathForm() async throws {
        let house = try await House()
        defer { house.stop() }
        let mark = house.recorder.mark
        let data = try await house.ok("characteristic/write", ["writes": [["characteristic": "bulb/lightbulb/brightness", "value": 40]]])
        #expect(data["results"]?[0]?["status"] == "ok", "\(data)")
        try await house.recorder.wait(for: "zigbee2mqtt/bulb/set", after: mark) { $0["brightness"] != nil }
        let read = try await house.ok("characteristic/read", ["characteristic": "bulb/lightbulb/brightness"])
        #expect(read["value"] == 40)
    }

    @Test("a read of an unreachable device is refused at once with the last known value, as a write is")
    func unreachableRead() async throws {
        let house = try await House()
        defer { house.stop() }
        let mark = house.recorder.mark
        try await house.recorder.publish("zigbee2mqtt/bulb/availability", #"{"state":"offline"}"#)
        try await house.recorder.wait(for: "homegate/state/bulb", after: mark) { $0["reachable"] == false }
        let answer = try await house.request("characteristic/read", ["accessory": "bulb", "service": "lightbulb", "characteristic": "on"])
        #expect(answer["status"] == "error" && answer["error"] == "bulb: is not reachable; data has the last known value", "\(answer)")
        #expect(answer["data"]?["fresh"] == false)
        #expect(!house.recorder.since(mark).contains { $0.topic == "zigbee2mqtt/bulb/get" }, "the device was not asked")
    }
}
