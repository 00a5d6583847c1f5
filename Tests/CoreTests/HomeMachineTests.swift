import Automation
import Foundation
import Gateway
import HomeModel
import JSON
import Mappings
import Testing

/// The machine's typed output, which every peer reads the same way, and the MQTT API as one of them.
@Suite("HomeMachine: one typed output per step, each event's JSON written once")
struct HomeMachineTests {
    static let time = Date(timeIntervalSince1970: 1_795_000_000)

    static func machine() throws -> HomeMachine {
        var mappings = MappingSet()
        #expect(mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        var machine = HomeMachine(core: HomeCore(mappings: mappings, now: time))
        _ = machine.storedAtOnce(
            machine.handle(
                [
                    Incoming(topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"online"}"#.utf8)),
                    Incoming(topic: "zigbee2mqtt/bridge/devices", payload: try TestHome.demoDeviceBytes()),
                ], now: time))
        return machine
    }

    @Test("a reading: its events with the documented JSON, the accessory's state now, no tree, nothing for devices")
    func reading() throws {
        var machine = try Self.machine()
        let output = machine.handle(
            [Incoming(topic: "zigbee2mqtt/bulb", payload: Array(#"{"state":"ON","brightness":254}"#.utf8))], now: Self.time)
        #expect(output.devices.isEmpty && output.tree == nil && !output.treeChanged)
        let on = try #require(output.events.first { $0.characteristic == "on" })
        #expect(on.accessory == "bulb" && on.type == "characteristic")
        #expect(on.payload == HomeJSON.eventPayload(on.event, time: instantText(Self.time)))
        #expect(output.states.map(\.id) == ["bulb"])
        #expect(output.states.first?.accessory?.statePayload == machine.core.accessory("bulb")?.statePayload)
    }

    @Test("a command: the write to the device leads the output, the reply comes under the command's ticket")
    func command() throws {
        var machine = try Self.machine()
        let (ticket, output) = machine.perform(
            .values(.write([WriteRequest(accessory: "bulb", service: "lightbulb", characteristic: "on", value: true)])),
            now: Self.time)
        #expect(output.devices.map(\.topic) == ["zigbee2mqtt/bulb/set"])
        let stored = machine.storedAtOnce(output)
        #expect(stored.replies.map(\.ticket) == [ticket])
    }

    @Test("a room added: the tree's front ends are told, its event is there with its JSON")
    func room() throws {
        var machine = try Self.machine()
        let output = machine.storedAtOnce(machine.perform(.structure(.addRoom(name: "Attic", home: nil)), now: Self.time).1)
        #expect(output.treeChanged)
        #expect(output.events.contains { $0.type == "room" })
    }

    @Test("MQTT's messages for a step: events with the step's bytes, then states, then its own replies, never another peer's")
    func mqttRendering() throws {
        var mappings = MappingSet()
        #expect(mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        var pipeline = MQTTPipeline(baseTopic: "homegate", core: HomeCore(mappings: mappings, now: Self.time))
        _ = pipeline.handleStored(
            [
                Incoming(topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"online"}"#.utf8)),
                Incoming(topic: "zigbee2mqtt/bridge/devices", payload: try TestHome.demoDeviceBytes()),
            ], now: Self.time)
        let out = pipeline.handleStored(
            [
                Incoming(
                    topic: "homegate/request/characteristic/write",
                    payload: Array(
                        #"{"transaction":1,"writes":[{"accessory":"bulb","service":"lightbulb","characteristic":"on","value":true}]}"#.utf8)
                ),
                Incoming(topic: "zigbee2mqtt/bulb", payload: Array(#"{"state":"ON"}"#.utf8)),
            ], now: Self.time)
        let topics = out.map(\.topic)
        #expect(topics.first == "zigbee2mqtt/bulb/set", "\(topics)")
        let event = try #require(topics.firstIndex(of: "homegate/event/bulb/lightbulb/on"))
        let state = try #require(topics.firstIndex(of: "homegate/state/bulb"))
        let response = try #require(topics.firstIndex(of: "homegate/response/characteristic/write"))
        #expect(event < state && state < response)
        #expect(topics.filter { $0.hasPrefix("homegate/response/") }.count == 1)
        #expect(out[response].text.contains(#""status":"ok""#), "\(out[response].text)")
    }
}
