import GatewayCore
import HomeModel
import JSON
import Matter
import Testing

@testable import MatterBridge

@Suite("the house laid out as Matter endpoints")
struct LayoutTests {
    static func house(_ accessories: [Accessory]) -> HomeSnapshot {
        let structure = HomeStructure(
            homes: [Home(id: "home", name: "Home", defaultRoom: "default_room")], primaryHome: "home",
            rooms: [Room(id: "default_room", name: "Default Room", home: "home")], zones: [], placements: [:])
        return HomeSnapshot(accessories: accessories, lastSeen: [:], structure: structure)
    }

    static let lamp = Accessory(
        id: "lamp", name: "Desk Lamp", manufacturer: "IKEA", model: "LED1545G12",
        services: [
            Service(
                id: "lightbulb", type: .lightbulb,
                characteristics: [
                    Characteristic(.on, value: .bool(true)), Characteristic(.brightness, value: .int(50)),
                    Characteristic(.color_temperature, value: .int(300), minValue: 250, maxValue: 454),
                ])
        ])
    static let plug = Accessory(
        id: "plug", name: "Coffee Machine", services: [Service(id: "outlet", type: .outlet, characteristics: [Characteristic(.on)])])
    static let weather = Accessory(
        id: "weather", name: "Weather", reachable: false,
        services: [
            Service(
                id: "temperature", type: .temperature_sensor, characteristics: [Characteristic(.current_temperature, value: .float(21.5))]),
            Service(
                id: "humidity", type: .humidity_sensor, characteristics: [Characteristic(.current_relative_humidity, value: .float(48))]),
            Service(id: "smoke", type: .smoke_sensor, characteristics: [Characteristic(.smoke_detected, value: .int(0))]),
        ])

    @Test("each service Matter has a device type for is an endpoint from 2 on, a Bridged Node with the accessory's name and vendor")
    func endpoints() {
        var map = EndpointMap()
        let layout = EndpointLayout.build(Self.house([Self.lamp, Self.plug, Self.weather]), selection: .everything, map: &map)
        #expect(layout.parts == [2, 3, 4, 5, 6, 7])  // the smoke sensor a Smoke CO Alarm (SensorTests); 7 the weather's parent
        #expect(layout.endpoints[2]?.device == .light(dimmable: true, colorTemperature: 250...454))
        #expect(layout.endpoints[3]?.device == .plug)
        #expect(layout.endpoints[4]?.device == .temperature && layout.endpoints[5]?.device == .humidity)
        let information = layout.clusters[2]?[Cluster.bridgedDeviceBasicInformation]?.attributes
        #expect(information?[0x0005] == .utf8("Desk Lamp") && information?[0x0001] == .utf8("IKEA") && information?[0x0011] == .bool(true))
        #expect(layout.clusters[7]?[Cluster.bridgedDeviceBasicInformation]?.attributes[0x0011] == .bool(false))  // away, still listed
        #expect(layout.clusters[2]?[Cluster.levelControl]?.attributes[0x0000] == .unsigned(127))
        #expect(layout.clusters[2]?[Cluster.colorControl]?.attributes[0x0007] == .unsigned(300))
        #expect(layout.clusters[4]?[Cluster.temperatureMeasurement]?.attributes[0x0000] == .signed(2150))
        #expect(layout.clusters[5]?[Cluster.relativeHumidityMeasurement]?.attributes[0x0000] == .unsigned(4800))
        let uniqueID = layout.clusters[2]?[Cluster.bridgedDeviceBasicInformation]?.attributes[0x0012]
        #expect(uniqueID == .utf8(EndpointLayout.uniqueID("lamp/lightbulb")) && EndpointLayout.uniqueID("lamp/lightbulb").count == 32)
    }

    @Test("a number is never reused: a device that leaves keeps its own, a newcomer gets the next")
    func numbers() throws {
        var map = EndpointMap()
        _ = EndpointLayout.build(Self.house([Self.lamp, Self.plug]), selection: .everything, map: &map)
        let left = EndpointLayout.build(Self.house([Self.plug, Self.weather]), selection: .everything, map: &map)
        #expect(left.parts == [3, 4, 5, 6, 7])
        let back = EndpointLayout.build(Self.house([Self.weather, Self.lamp, Self.plug]), selection: .everything, map: &map)
        #expect(back.parts == [2, 3, 4, 5, 6, 7] && back.endpoints[2]?.accessory == "lamp" && back.nodes["weather"] == 7)
        let excluded = try BridgedSelection(exclude: [AccessorySelector.parse("accessory:Coffee Machine").get()])
        #expect(EndpointLayout.build(Self.house([Self.lamp, Self.plug]), selection: excluded, map: &map).parts == [2])
    }

    @Test("invokes become the house's writes, checked against the characteristics")
    func invokes() throws {
        var map = EndpointMap()
        let lamp = try #require(EndpointLayout.build(Self.house([Self.lamp]), selection: .everything, map: &map).endpoints[2])
        func write(_ name: String, _ value: JSONValue) -> WriteRequest {
            WriteRequest(accessory: "lamp", service: "lightbulb", characteristic: name, value: value)
        }
        let path = { (cluster: UInt32, command: UInt32) in CommandPath(endpoint: 2, cluster: cluster, command: command) }
        // Toggle of a lamp that is on.
        #expect(lamp.writes(for: path(Cluster.onOff, 2), fields: .structure([])) == .writes([write("on", .bool(false))]))
        let level = { (value: UInt64) in TLVValue.structure([TLVElement(.context(0), .unsigned(value))]) }
        #expect(
            lamp.writes(for: path(Cluster.levelControl, 4), fields: level(254))
                == .writes([write("on", .bool(true)), write("brightness", .integer(100))]))
        #expect(lamp.writes(for: path(Cluster.levelControl, 4), fields: level(1)) == .writes([write("on", .bool(false))]))
        #expect(lamp.writes(for: path(Cluster.levelControl, 0), fields: level(127)) == .writes([write("brightness", .integer(50))]))
        #expect(
            lamp.writes(for: path(Cluster.colorControl, 0x0A), fields: level(370)) == .writes([write("color_temperature", .integer(370))]))
        #expect(lamp.writes(for: path(Cluster.colorControl, 0x0A), fields: level(153)) == .refused(.constraintError))  // below 250
        #expect(lamp.writes(for: path(Cluster.levelControl, 3), fields: .structure([])) == .writes([]))  // Stop
        #expect(lamp.writes(for: path(Cluster.onOff, 0x40), fields: .structure([])) == .refused(.unsupportedCommand))
        var away = lamp
        away.reachable = false  // the house refuses writes to a device that does not answer
        #expect(away.writes(for: path(Cluster.onOff, 1), fields: .structure([])) == .refused(.failure))
    }

    @Test("a thermostat's setpoint and mode are written as attributes, nudged by SetpointRaiseLower, within its range and modes")
    func thermostat() throws {
        var target = Characteristic(.target_temperature, value: .float(21), minValue: 5, maxValue: 30)
        target.isWritable = true
        let radiator = Accessory(
            id: "radiator", name: "Radiator",
            services: [
                Service(
                    id: "thermostat", type: .thermostat,
                    characteristics: [
                        Characteristic(.current_temperature, value: .float(20.5)), target,
                        Characteristic(.target_heating_cooling_state, value: .int(1), validValues: [1]),
                        Characteristic(.current_heating_cooling_state, value: .int(1)),
                        Characteristic(.temperature_display_units, value: .int(0)),
                    ])
            ])
        var map = EndpointMap()
        let layout = EndpointLayout.build(Self.house([radiator]), selection: .everything, map: &map)
        let endpoint = try #require(layout.endpoints[2])
        #expect(endpoint.device == .thermostat(setpoint: 5...30))
        #expect(layout.clusters[2]?[Cluster.thermostat]?.attributes[0x0000] == .signed(2050))
        #expect(layout.clusters[2]?[Cluster.thermostat]?.attributes[0x0012] == .signed(2100))
        #expect(layout.clusters[2]?[Cluster.thermostat]?.attributes[0x001C] == .unsigned(4))  // heat
        func write(_ name: String, _ value: JSONValue) -> BridgedEndpoint.Invoke {
            .writes([WriteRequest(accessory: "radiator", service: "thermostat", characteristic: name, value: value)])
        }
        let setpoint = AttributePath(endpoint: 2, cluster: Cluster.thermostat, attribute: 0x0012)
        let mode = AttributePath(endpoint: 2, cluster: Cluster.thermostat, attribute: 0x001C)
        #expect(endpoint.writes(for: setpoint, value: .signed(2250)) == write("target_temperature", .double(22.5)))
        #expect(endpoint.writes(for: setpoint, value: .signed(4000)) == .refused(.constraintError))
        #expect(endpoint.writes(for: mode, value: .unsigned(4)) == write("target_heating_cooling_state", .integer(1)))
        #expect(endpoint.writes(for: mode, value: .unsigned(0)) == .refused(.constraintError))  // it cannot be off
        let nudge = TLVValue.structure([TLVElement(.context(0), .unsigned(0)), TLVElement(.context(1), .signed(-10))])
        #expect(
            endpoint.writes(for: CommandPath(endpoint: 2, cluster: Cluster.thermostat, command: 0), fields: nudge)
                == write("target_temperature", .double(20)))
    }

    @Test("an accessory with several services is a composed device: a Bridged Node parent, its children by PartsList and TagList")
    func composed() throws {
        var map = EndpointMap()
        let layout = EndpointLayout.build(Self.house([Self.lamp, Self.weather]), selection: .everything, map: &map)
        #expect(layout.parts == [2, 3, 4, 5, 6] && layout.nodes == ["lamp": 2, "weather": 6])
        #expect(map.endpoints["weather/"] == 6)
        #expect(SensorTests.deviceTypes(layout, 2) == [0x010C, 0x0013])  // one service: the device and Bridged Node, as before
        #expect(SensorTests.deviceTypes(layout, 6) == [0x0013])  // the parent: Bridged Node alone
        #expect(
            SensorTests.deviceTypes(layout, 3) == [0x0302] && SensorTests.deviceTypes(layout, 4) == [0x0307]
                && SensorTests.deviceTypes(layout, 5) == [0x0076])
        let parent = try #require(layout.clusters[6])
        #expect(Set(parent.keys) == [Cluster.descriptor, Cluster.bridgedDeviceBasicInformation])
        #expect(parent[Cluster.descriptor]?.attributes[0x0003] == DataModel.Cluster.partsList([3, 4, 5]))
        let information = parent[Cluster.bridgedDeviceBasicInformation]?.attributes
        #expect(information?[0x0005] == .utf8("Weather") && information?[0x0011] == .bool(false))
        #expect(information?[0x0012] == .utf8(EndpointLayout.uniqueID("weather/")))
        for child in [UInt16(3), 4, 5] {
            #expect(layout.clusters[child]?[Cluster.bridgedDeviceBasicInformation] == nil)
            #expect(layout.clusters[child]?[Cluster.descriptor]?.attributes[0x0003] == .array([]))
            #expect(layout.clusters[child]?[Cluster.descriptor]?.attributes[0xFFFC] == .unsigned(1))  // TagList
        }
        let tag = TLVElement(
            .structure([
                TLVElement(.context(0), .null), TLVElement(.context(1), .unsigned(0x07)), TLVElement(.context(2), .unsigned(2)),
                TLVElement(.context(3), .utf8("humidity")),
            ]))
        #expect(layout.clusters[4]?[Cluster.descriptor]?.attributes[0x0004] == .array([tag]))  // the second child, by its service
        #expect(layout.byAccessory["weather"] == [3, 4, 5] && layout.endpoints[6] == nil)
        var model = RootNode.model(name: "homegate", layout: layout)
        #expect(model.endpoints[1]?[Cluster.descriptor]?.attributes[0x0003] == DataModel.Cluster.partsList([2, 3, 4, 5, 6]))
        RootNode.apply(layout, to: &model)
        #expect(model.endpoints[6]?[Cluster.descriptor]?.attributes[0x0003] == DataModel.Cluster.partsList([3, 4, 5]))
    }

    @Test(
        "an invoke or write reaches a service's endpoint; a parent refuses it as a command or write it lacks, a number never laid out as no endpoint; the running bridge's kept layout answers alike"
    )
    func reach() {
        var map = EndpointMap()
        let full = EndpointLayout.build(Self.house([Self.lamp, Self.weather]), selection: .everything, map: &map)
        for layout in [full, full.served] {
            guard case .endpoint(let child) = layout.reach(4, parent: .unsupportedCommand) else {
                Issue.record("endpoint 4 (the weather's humidity) not reached")
                continue
            }
            #expect(child.accessory == "weather" && child.service == "humidity")
            for (parent, status) in [
                (InteractionStatus.unsupportedCommand, InteractionStatus.unsupportedCommand), (.unsupportedWrite, .unsupportedWrite),
            ] {
                guard case .refused(let refusal) = layout.reach(6, parent: parent) else {
                    Issue.record("the parent 6 was reached")
                    continue
                }
                #expect(refusal == status)
            }
            for number in [UInt16(7), 1000] as [UInt16?] + [nil] {
                guard case .refused(let refusal) = layout.reach(number, parent: .unsupportedCommand) else {
                    Issue.record("\(String(describing: number)) was reached")
                    continue
                }
                #expect(refusal == .unsupportedEndpoint)
            }
        }
        #expect(full.served.clusters.values.allSatisfy(\.isEmpty) && full.served.parts == full.parts)
    }

    @Test("a service that was a Bridged Node of its own keeps its number as a child; a parent's number is never reused")
    func composedNumbers() {
        var map = EndpointMap()
        let lone = Accessory(id: "weather", name: "Weather", services: [Self.weather.services[0]])
        let before = EndpointLayout.build(Self.house([lone, Self.plug]), selection: .everything, map: &map)
        #expect(before.parts == [2, 3] && SensorTests.deviceTypes(before, 2) == [0x0302, 0x0013])
        let grown = EndpointLayout.build(Self.house([Self.weather, Self.plug]), selection: .everything, map: &map)
        #expect(grown.parts == [2, 3, 4, 5, 6] && grown.nodes["weather"] == 6)  // humidity 4, smoke 5, the parent 6
        #expect(SensorTests.deviceTypes(grown, 2) == [0x0302] && grown.clusters[2]?[Cluster.bridgedDeviceBasicInformation] == nil)
        let shrunk = EndpointLayout.build(Self.house([lone, Self.plug]), selection: .everything, map: &map)
        #expect(shrunk.parts == [2, 3] && shrunk.nodes["weather"] == 2)  // a Bridged Node again; 6 stays taken
        let again = EndpointLayout.build(Self.house([Self.weather, Self.plug]), selection: .everything, map: &map)
        #expect(again.nodes["weather"] == 6 && map.next == 7)
    }

    @Test("a lock's buttons (its action values) are not bridged: the Door Lock alone, a Bridged Node")
    func lockButtons() {
        var map = EndpointMap()
        let lock = Accessory(
            id: "lock", name: "Front Door",
            services: [
                Service(
                    id: "lock_mechanism", type: .lock_mechanism,
                    characteristics: [
                        Characteristic(.lock_current_state, value: .int(1)), Characteristic(.lock_target_state, value: .int(1)),
                    ]),
                Service(
                    id: "stateless_programmable_switch_lock", type: .stateless_programmable_switch,
                    characteristics: [Characteristic(.programmable_switch_event)]),
                Service(
                    id: "stateless_programmable_switch_unlock", type: .stateless_programmable_switch,
                    characteristics: [Characteristic(.programmable_switch_event)]),
            ])
        let layout = EndpointLayout.build(Self.house([lock]), selection: .everything, map: &map)
        #expect(layout.parts == [2] && SensorTests.deviceTypes(layout, 2) == [0x000A, 0x0013] && map.endpoints.count == 1)
    }

    @Test("values become attributes: a contact closed is StateValue true, brightness a level from 1 to 254")
    func attributes() {
        #expect(BridgedDevice.contact.attributes("contact_sensor_state", .int(0)).map(\.2) == [.bool(true)])
        #expect(BridgedDevice.contact.attributes("contact_sensor_state", .int(1)).map(\.2) == [.bool(false)])
        #expect(BridgedDevice.light(dimmable: true, colorTemperature: nil).attributes("brightness", .int(0)).map(\.2) == [.unsigned(1)])
        #expect(BridgedDevice.light(dimmable: true, colorTemperature: nil).attributes("brightness", .int(100)).map(\.2) == [.unsigned(254)])
        #expect(
            BridgedDevice.occupancy(characteristic: "motion_detected").attributes("motion_detected", .bool(true)).map(\.2) == [.unsigned(1)]
        )
        #expect(BridgedDevice.plug.attributes("outlet_in_use", .bool(true)).isEmpty)
        let covering = BridgedDevice.windowCovering
        #expect(covering.attributes("current_position", .int(75)).map(\.2) == [.unsigned(2500)])  // 75 % open: 25 % closed
        #expect(covering.attributes("position_state", .int(0)).map(\.2) == [.unsigned(0b1010)])  // closing
        #expect(Lift.open(closed100ths: 2500) == 75 && Lift.open(closed100ths: 10000) == 0)
        // A press is events, no attribute: single, double, long.
        let button = BridgedDevice.genericSwitch
        #expect(button.attributes("programmable_switch_event", .int(0)).isEmpty)
        #expect(button.events("programmable_switch_event", .int(0)).map(\.0) == [0x01, 0x03, 0x06])
        #expect(button.events("programmable_switch_event", .int(1)).map(\.0) == [0x01, 0x03, 0x05, 0x01, 0x03, 0x06])
        #expect(button.events("programmable_switch_event", .int(2)).map(\.0) == [0x01, 0x02, 0x04])
        #expect(EndpointLayout.truncated("Wohnzimmer Stehlampe über dem Sofa") == "Wohnzimmer Stehlampe über dem S")
    }
}
