import GatewayCore
import HomeModel
import JSON
import Matter
import Testing

@testable import MatterBridge

@Suite("locks, fans, cooling thermostats and tilting blinds as Matter devices")
struct ActuatorTests {
    static func writable(_ characteristic: Characteristic) -> Characteristic { LightTests.writable(characteristic) }

    /// The one endpoint a single service lays out as, and its clusters.
    static func laid(_ service: Service) throws -> (BridgedEndpoint, [UInt32: DataModel.Cluster]) {
        var map = EndpointMap()
        let accessory = Accessory(id: "device", name: "Device", services: [service])
        let layout = EndpointLayout.build(LayoutTests.house([accessory]), selection: .everything, map: &map)
        return (try #require(layout.endpoints[2]), try #require(layout.clusters[2]))
    }

    static func write(_ service: String, _ characteristic: String, _ value: JSONValue) -> WriteRequest {
        WriteRequest(accessory: "device", service: service, characteristic: characteristic, value: value)
    }

    @Test("a lock is a Door Lock: LockState from its current state, LockDoor and UnlockDoor its target, a LockOperation when it turned")
    func lock() throws {
        let (lock, clusters) = try Self.laid(
            Service(
                id: "lock", type: .lock_mechanism,
                characteristics: [
                    Characteristic(.lock_current_state, value: .int(0)), Self.writable(Characteristic(.lock_target_state, value: .int(0))),
                ]))
        #expect(lock.device == .doorLock && lock.device.deviceType.type == 0x000A)
        let attributes = try #require(clusters[Cluster.doorLock]?.attributes)
        #expect(attributes[0x0000] == .unsigned(2))  // unlocked
        #expect(attributes[0x0001] == .unsigned(0) && attributes[0x0002] == .bool(true) && attributes[0x0025] == .unsigned(0))
        #expect(attributes[0x0026] == .unsigned(0xFFFE) && attributes[0xFFFC] == .unsigned(0))
        // HomeKit: 0 unsecured, 1 secured, 2 jammed, 3 unknown; Matter: 2 unlocked, 1 locked, 0 not fully locked, null.
        #expect([0, 1, 2, 3].map { BridgedDevice.lockState(homeKit: $0) } == [.unsigned(2), .unsigned(1), .unsigned(0), .null])
        let path = { (command: UInt32) in CommandPath(endpoint: 2, cluster: Cluster.doorLock, command: command) }
        #expect(lock.writes(for: path(0), fields: .structure([])) == .writes([Self.write("lock", "lock_target_state", .integer(1))]))
        #expect(lock.writes(for: path(1), fields: .structure([])) == .writes([Self.write("lock", "lock_target_state", .integer(0))]))
        #expect(lock.writes(for: path(3), fields: .structure([])) == .refused(.unsupportedCommand))  // UnlockWithTimeout
        let operations = { (from: CharacteristicValue?, to: CharacteristicValue) in
            lock.device.lockEvents("lock_current_state", to, previous: from)
        }
        #expect(operations(.int(0), .int(1)).map(\.event) == [0x02])
        #expect(operations(.int(0), .int(1)).first?.fields.first?.value == .unsigned(0))  // Lock
        #expect(operations(.int(1), .int(0)).first?.fields.first?.value == .unsigned(1))  // Unlock
        #expect(operations(.int(1), .int(2)).isEmpty)  // jammed
        // Nobody locked it: the first report after a restart, the end of a jam or of an unknown state.
        #expect(operations(nil, .int(1)).isEmpty && operations(.int(2), .int(1)).isEmpty && operations(.int(3), .int(0)).isEmpty)
        let mode = AttributePath(endpoint: 2, cluster: Cluster.doorLock, attribute: 0x0025)
        #expect(
            lock.writes(for: mode, value: .unsigned(0)) == .writes([])
                && lock.writes(for: mode, value: .unsigned(1)) == .refused(.constraintError))
    }

    static let fan = Service(
        id: "fan", type: .fanv2,
        characteristics: [
            writable(Characteristic(.active, value: .int(0))), writable(Characteristic(.rotation_speed, value: .float(33), minStep: 33)),
            writable(Characteristic(.target_fan_state, value: .int(0))),
        ])

    @Test("a fan's mode and percentage come from its power, speed and auto state together; writes, Step and Auto go back")
    func fan() throws {
        var (fan, clusters) = try Self.laid(Self.fan)
        #expect(fan.device == .fan(Fan(power: "active", speeds: 3, stepped: true, auto: true, direction: false)))
        let attributes = try #require(clusters[Cluster.fanControl]?.attributes)
        #expect(attributes[0x0001] == .unsigned(2))  // Off/Low/Med/High/Auto
        #expect(attributes[0xFFFC] == .unsigned(0x12))  // Auto, Step
        #expect(attributes[0x0000] == .unsigned(0) && attributes[0x0002] == .unsigned(0) && attributes[0x0003] == .unsigned(0))
        let path = { (attribute: UInt32) in AttributePath(endpoint: 2, cluster: Cluster.fanControl, attribute: attribute) }
        // Off: a percentage switches it on and sets the speed, in one write.
        #expect(
            fan.writes(for: path(0x0002), value: .unsigned(50))
                == .writes([Self.write("fan", "active", .integer(1)), Self.write("fan", "rotation_speed", .integer(50))]))
        #expect(fan.writes(for: path(0x0002), value: .unsigned(101)) == .refused(.constraintError))
        fan.characteristics["active"]?.value = .int(1)
        fan.characteristics["rotation_speed"]?.value = .float(66)
        #expect(fan.derived("rotation_speed").map(\.2) == [.unsigned(2), .unsigned(66), .unsigned(66)])  // Medium
        #expect(fan.writes(for: path(0x0000), value: .unsigned(3)) == .writes([Self.write("fan", "rotation_speed", .integer(100))]))
        #expect(fan.writes(for: path(0x0000), value: .unsigned(0)) == .writes([Self.write("fan", "active", .integer(0))]))
        #expect(fan.writes(for: path(0x0000), value: .unsigned(5)) == .writes([Self.write("fan", "target_fan_state", .integer(1))]))
        #expect(fan.writes(for: path(0x000B), value: .unsigned(1)) == .refused(.unsupportedWrite))  // no rotation_direction
        fan.characteristics["rotation_speed"]?.value = .float(99)  // the house's step for high
        #expect(fan.derived("rotation_speed").map(\.2) == [.unsigned(3), .unsigned(100), .unsigned(100)])
        fan.characteristics["rotation_speed"]?.value = .float(66)
        fan.characteristics["target_fan_state"]?.value = .int(1)
        #expect(fan.derived("target_fan_state").first?.2 == .unsigned(5))  // Auto
        // A speed leaves auto; the speed is written last.
        #expect(
            fan.writes(for: path(0x0000), value: .unsigned(1))
                == .writes([Self.write("fan", "target_fan_state", .integer(0)), Self.write("fan", "rotation_speed", .integer(33))]))
        fan.characteristics["target_fan_state"]?.value = .int(0)
        let step = { (direction: UInt64, wrap: Bool, lowestOff: Bool) in
            fan.writes(
                for: CommandPath(endpoint: 2, cluster: Cluster.fanControl, command: 0),
                fields: .structure([
                    TLVElement(.context(0), .unsigned(direction)), TLVElement(.context(1), .bool(wrap)),
                    TLVElement(.context(2), .bool(lowestOff)),
                ]))
        }
        #expect(step(0, false, true) == .writes([Self.write("fan", "rotation_speed", .integer(100))]))
        #expect(step(1, false, true) == .writes([Self.write("fan", "rotation_speed", .integer(33))]))
        fan.characteristics["rotation_speed"]?.value = .float(100)
        #expect(step(0, false, true) == .writes([Self.write("fan", "rotation_speed", .integer(100))]))  // at the top, no wrap
        #expect(step(0, true, true) == .writes([Self.write("fan", "active", .integer(0))]))  // wrapped to off
        #expect(step(0, true, false) == .writes([Self.write("fan", "rotation_speed", .integer(33))]))  // wrapped to the lowest speed
    }

    @Test("a HomeKit fan (v1) with on and a direction: On/High only, AirflowDirection both ways")
    func plainFan() throws {
        let (fan, clusters) = try Self.laid(
            Service(
                id: "fan", type: .fan,
                characteristics: [
                    Self.writable(Characteristic(.on, value: .bool(true))),
                    Self.writable(Characteristic(.rotation_direction, value: .int(1))),
                ]))
        let attributes = try #require(clusters[Cluster.fanControl]?.attributes)
        #expect(attributes[0x0001] == .unsigned(5) && attributes[0xFFFC] == .unsigned(0x30))  // Off/High; Step, AirflowDirection
        #expect(attributes[0x0000] == .unsigned(3) && attributes[0x0003] == .unsigned(100) && attributes[0x000B] == .unsigned(1))
        let path = { (attribute: UInt32) in AttributePath(endpoint: 2, cluster: Cluster.fanControl, attribute: attribute) }
        #expect(fan.writes(for: path(0x000B), value: .unsigned(0)) == .writes([Self.write("fan", "rotation_direction", .integer(0))]))
        #expect(fan.writes(for: path(0x0000), value: .unsigned(0)) == .writes([Self.write("fan", "on", .bool(false))]))
        #expect(fan.writes(for: path(0x0000), value: .unsigned(5)) == .refused(.constraintError))  // no auto
    }

    static func thermostat(modes: [Int], thresholds: Bool) -> Service {
        var characteristics = [
            Characteristic(.current_temperature, value: .float(22)),
            writable(Characteristic(.target_temperature, value: .float(21), minValue: 5, maxValue: 30)),
            writable(Characteristic(.target_heating_cooling_state, value: .int(2), validValues: modes)),
            Characteristic(.current_heating_cooling_state, value: .int(2)),
        ]
        if thresholds {
            characteristics += [
                writable(Characteristic(.heating_threshold_temperature, value: .float(20), minValue: 5, maxValue: 30)),
                writable(Characteristic(.cooling_threshold_temperature, value: .float(25), minValue: 10, maxValue: 35)),
            ]
        }
        return Service(id: "thermostat", type: .thermostat, characteristics: characteristics)
    }

    @Test("a thermostat's current heating or cooling is ThermostatRunningState, on heating-only and cooling thermostats alike")
    func runningState() throws {
        let (room, clusters) = try Self.laid(Self.thermostat(modes: [0, 1, 2, 3], thresholds: true))
        #expect(clusters[Cluster.thermostat]?.attributes[0x0029] == .unsigned(0x02))  // cooling
        #expect(room.device.attributes("current_heating_cooling_state", .int(1)).map(\.2) == [.unsigned(0x01)])
        #expect(room.device.attributes("current_heating_cooling_state", .int(0)).map(\.2) == [.unsigned(0)])
        #expect(room.device.attributes("current_heating_cooling_state", .int(7)).isEmpty)
        let (valve, valveClusters) = try Self.laid(Self.thermostat(modes: [0, 1], thresholds: false))
        guard case .thermostat = valve.device else { throw ClimateMissing() }
        #expect(valveClusters[Cluster.thermostat]?.attributes[0x0029] == .unsigned(0x02))
        #expect(valve.device.attributes("current_heating_cooling_state", .int(1)).map(\.2) == [.unsigned(0x01)])
        // A thermostat that does not say whether it runs has no ThermostatRunningState.
        var silent = Self.thermostat(modes: [0, 1], thresholds: false)
        silent.characteristics.removeAll { $0.name == "current_heating_cooling_state" }
        #expect(try Self.laid(silent).1[Cluster.thermostat]?.attributes[0x0029] == nil)
    }

    @Test("a thermostat that heats, cools and has auto: both setpoints from its thresholds, AutoMode, each written and nudged")
    func autoThermostat() throws {
        let (room, clusters) = try Self.laid(Self.thermostat(modes: [0, 1, 2, 3], thresholds: true))
        guard case .climate(let climate) = room.device else { throw ClimateMissing() }
        #expect(climate.heat && climate.cool && climate.auto && room.device.deviceType.type == 0x0301)
        let attributes = try #require(clusters[Cluster.thermostat]?.attributes)
        #expect(attributes[0xFFFC] == .unsigned(0x23))  // Heating, Cooling, AutoMode
        #expect(attributes[0x001B] == .unsigned(4) && attributes[0x0019] == .signed(0))  // cooling and heating; dead band 0
        #expect(attributes[0x0012] == .signed(2000) && attributes[0x0011] == .signed(2500) && attributes[0x0000] == .signed(2200))
        #expect(attributes[0x0005] == .signed(1000) && attributes[0x0006] == .signed(3500) && attributes[0x0003] == .signed(500))
        #expect(attributes[0x001C] == .unsigned(3))  // cool
        let path = { (attribute: UInt32) in AttributePath(endpoint: 2, cluster: Cluster.thermostat, attribute: attribute) }
        #expect(
            room.writes(for: path(0x0011), value: .signed(2400))
                == .writes([Self.write("thermostat", "cooling_threshold_temperature", .double(24))]))
        #expect(
            room.writes(for: path(0x0012), value: .signed(1950))
                == .writes([Self.write("thermostat", "heating_threshold_temperature", .double(19.5))]))
        #expect(room.writes(for: path(0x0011), value: .signed(4000)) == .refused(.constraintError))
        #expect(
            room.writes(for: path(0x001C), value: .unsigned(1))
                == .writes([Self.write("thermostat", "target_heating_cooling_state", .integer(3))]))
        let nudge = { (mode: UInt64) in
            room.writes(
                for: CommandPath(endpoint: 2, cluster: Cluster.thermostat, command: 0),
                fields: .structure([TLVElement(.context(0), .unsigned(mode)), TLVElement(.context(1), .signed(-5))]))
        }
        #expect(nudge(1) == .writes([Self.write("thermostat", "cooling_threshold_temperature", .double(24.5))]))
        #expect(
            nudge(2)
                == .writes([
                    Self.write("thermostat", "heating_threshold_temperature", .double(19.5)),
                    Self.write("thermostat", "cooling_threshold_temperature", .double(24.5)),
                ]))
        #expect(room.device.attributes("cooling_threshold_temperature", .float(26)).map(\.2) == [.signed(2600)])
    }

    @Test(
        "a thermostat that cools with one target temperature: it is both setpoints; no AutoMode without heating; a heater stays as it was")
    func coolingThermostat() throws {
        let (room, clusters) = try Self.laid(Self.thermostat(modes: [0, 1, 2], thresholds: false))
        let attributes = try #require(clusters[Cluster.thermostat]?.attributes)
        #expect(attributes[0xFFFC] == .unsigned(0x03) && attributes[0x0019] == nil)
        #expect(attributes[0x0011] == .signed(2100) && attributes[0x0012] == .signed(2100))
        #expect(room.device.attributes("target_temperature", .float(23)).map(\.1) == [0x0012, 0x0011])
        let nudge = room.writes(
            for: CommandPath(endpoint: 2, cluster: Cluster.thermostat, command: 0),
            fields: .structure([TLVElement(.context(0), .unsigned(2)), TLVElement(.context(1), .signed(10))]))
        #expect(nudge == .writes([Self.write("thermostat", "target_temperature", .double(22))]))  // one setpoint, once
        #expect(
            room.writes(for: AttributePath(endpoint: 2, cluster: Cluster.thermostat, attribute: 0x001C), value: .unsigned(1))
                == .refused(.constraintError))  // no auto
        let (cooler, coolerClusters) = try Self.laid(Self.thermostat(modes: [0, 2], thresholds: false))
        #expect(coolerClusters[Cluster.thermostat]?.attributes[0xFFFC] == .unsigned(0x02))
        #expect(coolerClusters[Cluster.thermostat]?.attributes[0x001B] == .unsigned(0))  // cooling only
        #expect(coolerClusters[Cluster.thermostat]?.attributes[0x0012] == nil)
        #expect(
            cooler.writes(for: AttributePath(endpoint: 2, cluster: Cluster.thermostat, attribute: 0x0012), value: .signed(2000))
                == .refused(.unsupportedAttribute))
        #expect(try Self.laid(Self.thermostat(modes: [0, 1], thresholds: false)).0.device == .thermostat(setpoint: 5...30))
    }

    @Test("a blind's slat angle is Window Covering's tilt: 90° open, -90° closed; GoToTiltPercentage writes the angle")
    func tilt() throws {
        let (blind, clusters) = try Self.laid(
            Service(
                id: "blind", type: .window_covering,
                characteristics: [
                    Characteristic(.current_position, value: .int(100)), Self.writable(Characteristic(.target_position, value: .int(100))),
                    Characteristic(.position_state, value: .int(2)), Characteristic(.current_horizontal_tilt_angle, value: .int(0)),
                    Self.writable(Characteristic(.target_horizontal_tilt_angle, value: .int(0))),
                ]))
        let attributes = try #require(clusters[Cluster.windowCovering]?.attributes)
        #expect(attributes[0xFFFC] == .unsigned(0x17))  // Lift, Tilt, PositionAwareLift, PositionAwareTilt
        #expect(attributes[0x0007] == .unsigned(0x19) && attributes[0x0000] == .unsigned(8))
        #expect(attributes[0xFFF9] == .array([0, 1, 2, 5, 8].map { TLVElement(.unsigned($0)) }))  // GoToTiltPercentage its own
        #expect(attributes[0x000F] == .unsigned(5000) && attributes[0x000C] == .unsigned(5000) && attributes[0x000E] == .unsigned(0))
        #expect(blind.device.attributes("current_horizontal_tilt_angle", .int(90)).map(\.2) == [.unsigned(0)])
        #expect(blind.device.attributes("current_horizontal_tilt_angle", .int(-90)).map(\.2) == [.unsigned(10000)])
        let go = { (closed: UInt64) in
            blind.writes(
                for: CommandPath(endpoint: 2, cluster: Cluster.windowCovering, command: 8),
                fields: .structure([TLVElement(.context(0), .unsigned(closed))]))
        }
        #expect(go(2500) == .writes([Self.write("blind", "target_horizontal_tilt_angle", .integer(45))]))
        #expect(go(10000) == .writes([Self.write("blind", "target_horizontal_tilt_angle", .integer(-90))]))
        #expect(go(10001) == .refused(.constraintError))
        // A covering without tilt has none of it.
        let (_, plain) = try Self.laid(
            Service(
                id: "blind", type: .window_covering,
                characteristics: [Characteristic(.current_position, value: .int(100)), Characteristic(.target_position, value: .int(100))]))
        #expect(
            plain[Cluster.windowCovering]?.attributes[0xFFFC] == .unsigned(0x05) && plain[Cluster.windowCovering]?.attributes[0x000F] == nil
        )
        #expect(plain[Cluster.windowCovering]?.attributes[0xFFF9] == nil)  // the node's list, without GoToTiltPercentage
    }

    struct ClimateMissing: Error {}
}
