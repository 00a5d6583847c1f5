import GatewayCore
import HomeModel
import Matter
import Testing

@testable import MatterBridge

@Suite("Smoke CO Alarm events, carbon dioxide and Identify on every device type")
struct AlarmIdentifyTests {
    static let detector = Service(
        id: "smoke_sensor", type: .smoke_sensor,
        characteristics: [
            Characteristic(.smoke_detected, value: .int(0)), Characteristic(.status_low_battery, value: .int(0)),
            Characteristic(.status_fault, value: .int(0)),
        ])

    /// The service's characteristics by name, with `changes` applied in turn: the events each change stands for.
    static func events(_ device: BridgedDevice, _ service: Service, _ changes: [(String, CharacteristicValue)]) -> [[UInt32]] {
        var characteristics = Dictionary(service.characteristics.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        return changes.map { name, value in
            let before = characteristics
            characteristics[name]?.value = value
            return device.alarmEvents(name, value, before: before).map(\.0)
        }
    }

    @Test("a smoke alarm's events: SmokeAlarm as it sounds, LowBattery, HardwareFault, AllClear once all is normal; none twice")
    func smokeEvents() {
        let smoke = BridgedDevice.sensor(.alarm(.smoke))
        let events = Self.events(
            smoke, Self.detector,
            [
                ("smoke_detected", .int(1)),  // SmokeAlarm
                ("smoke_detected", .int(1)),  // reported again: nothing
                ("status_low_battery", .int(1)),  // LowBattery (the alarm still expressed)
                ("smoke_detected", .int(0)),  // the battery expressed now: no AllClear yet
                ("status_fault", .int(1)),  // HardwareFault
                ("status_low_battery", .int(0)),
                ("status_fault", .int(0)),  // all normal: AllClear
                ("status_fault", .int(0)),  // nothing
                ("smoke_detected", .int(1)), ("smoke_detected", .int(0)),  // SmokeAlarm, AllClear
            ])
        #expect(events == [[0x00], [], [0x02], [], [0x03], [], [0x0A], [], [0x00], [0x0A]])
        var characteristics = Dictionary(Self.detector.characteristics.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let before = characteristics
        characteristics["smoke_detected"]?.value = .int(1)
        let sounding = smoke.alarmEvents("smoke_detected", .int(1), before: before)
        #expect(sounding.first?.1 == [TLVElement(.context(0), .unsigned(2))])  // AlarmSeverityLevel: Critical
        var low = characteristics
        low["status_low_battery"]?.value = .int(1)
        #expect(
            smoke.alarmEvents("status_low_battery", .int(1), before: characteristics).first?.1 == [TLVElement(.context(0), .unsigned(1))]
        )
        #expect(BridgedDevice.eventPriority(cluster: Cluster.smokeCOAlarm, event: 0x00) == .critical)
        #expect(BridgedDevice.eventPriority(cluster: Cluster.smokeCOAlarm, event: 0x01) == .critical)
        #expect(BridgedDevice.eventPriority(cluster: Cluster.smokeCOAlarm, event: 0x0A) == .info)
        #expect(BridgedDevice.eventPriority(cluster: Cluster.switch, event: 0x00) == .info)
    }

    @Test("a carbon monoxide alarm's COAlarm; other devices have no alarm events")
    func carbonMonoxideEvents() {
        let service = Service(
            id: "carbon_monoxide_sensor", type: .carbon_monoxide_sensor, characteristics: [Characteristic(.carbon_monoxide_detected)])
        let co = BridgedDevice.sensor(.alarm(.carbonMonoxide))
        #expect(
            Self.events(
                co, service, [("carbon_monoxide_detected", .int(1)), ("smoke_detected", .int(1)), ("carbon_monoxide_detected", .int(0))])
                == [[0x01], [], [0x0A]])
        #expect(
            Self.events(
                .sensor(.leak), Service(id: "leak_sensor", type: .leak_sensor, characteristics: [Characteristic(.leak_detected)]),
                [("leak_detected", .int(1))]) == [[]])
    }

    @Test("carbon dioxide is a concentration cluster in ppm on the air quality sensor; a CO2 sensor's own service is not bridged")
    func carbonDioxide() {
        let air = Service(
            id: "air_quality_sensor", type: .air_quality_sensor,
            characteristics: [
                Characteristic(.air_quality, value: .int(1)), Characteristic(.pm2_5_density),
                Characteristic(.carbon_dioxide_level, value: .float(640)),
            ])
        let device = BridgedDevice(air)
        #expect(device == .sensor(.airQuality(densities: ["pm2_5_density", "carbon_dioxide_level"])))
        let clusters = device?.clusters(air)
        let co2 = clusters?[Cluster.carbonDioxideConcentrationMeasurement]?.attributes
        #expect(co2?[0x0000] == .float(640) && co2?[0x0001] == .float(0) && co2?[0x0002] == .float(100_000))
        // MeasurementUnit ppm, MeasurementMedium air, NumericMeasurement.
        #expect(co2?[0x0008] == .unsigned(0) && co2?[0x0009] == .unsigned(0) && co2?[0xFFFC] == .unsigned(1))
        #expect(clusters?[Cluster.pm25ConcentrationMeasurement]?.attributes[0x0008] == .unsigned(4))  // µg/m³ still
        #expect(device?.attributes("carbon_dioxide_level", .float(1250)).map(\.0) == [Cluster.carbonDioxideConcentrationMeasurement])
        #expect(device?.attributes("carbon_dioxide_level", .float(1250)).map(\.2) == [.float(1250)])
        let sensor = Service(
            id: "carbon_dioxide_sensor", type: .carbon_dioxide_sensor,
            characteristics: [Characteristic(.carbon_dioxide_detected), Characteristic(.carbon_dioxide_level)])
        #expect(BridgedDevice(sensor) == nil)  // its level is the air quality sensor's; HomeKit's threshold is HomeKit's
        #expect(BridgedCharacteristics(air)?.carried.contains("carbon_dioxide_level") == true)
    }

    @Test("Identify on every device type, a visible indicator where the device is no light; Identify and IdentifyTime ask the house")
    func identifyEverywhere() throws {
        let services: [Service] = [
            Service(id: "outlet", type: .outlet, characteristics: [Characteristic(.on, value: .bool(false))]),
            Self.detector,
            Service(id: "contact_sensor", type: .contact_sensor, characteristics: [Characteristic(.contact_sensor_state)]),
            Service(id: "temperature_sensor", type: .temperature_sensor, characteristics: [Characteristic(.current_temperature)]),
            Service(
                id: "window_covering", type: .window_covering,
                characteristics: [Characteristic(.current_position), Characteristic(.target_position), Characteristic(.position_state)]),
            Service(
                id: "lock_mechanism", type: .lock_mechanism,
                characteristics: [Characteristic(.lock_current_state), Characteristic(.lock_target_state)]),
            Service(
                id: "stateless_programmable_switch", type: .stateless_programmable_switch,
                characteristics: [Characteristic(.programmable_switch_event)]),
        ]
        for service in services {
            let device = try #require(BridgedDevice(service), "\(service.id)")
            let identify = device.clusters(service)[Cluster.identify]?.attributes
            #expect(identify?[0x0000] == .unsigned(0) && identify?[0x0001] == .unsigned(2), "\(service.id)")  // visible indicator
        }
        let lamp = Service(id: "lightbulb", type: .lightbulb, characteristics: [Characteristic(.on)])
        #expect(BridgedDevice(lamp)?.clusters(lamp)[Cluster.identify]?.attributes[0x0001] == .unsigned(1))  // a light's own: light output
        let plug = BridgedEndpoint(
            number: 7, accessory: "plug", service: "outlet", device: .plug,
            characteristics: ["on": Characteristic(.on, value: .bool(true))],
            reachable: true)
        let path = CommandPath(endpoint: 7, cluster: Cluster.identify, command: 0x00)
        #expect(plug.writes(for: path, fields: .structure([TLVElement(.context(0), .unsigned(10))])) == .identify("plug"))
        #expect(plug.writes(for: path, fields: .structure([TLVElement(.context(0), .unsigned(0))])) == .writes([]))
        let effect = CommandPath(endpoint: 7, cluster: Cluster.identify, command: 0x40)
        #expect(  // no effect setting: blink asks for identify, stop does nothing
            plug.writes(for: effect, fields: .structure([TLVElement(.context(0), .unsigned(0)), TLVElement(.context(1), .unsigned(0))]))
                == .identify("plug"))
        #expect(
            plug.writes(for: effect, fields: .structure([TLVElement(.context(0), .unsigned(0xFF)), TLVElement(.context(1), .unsigned(0))]))
                == .writes([]))
        #expect(
            plug.writes(for: AttributePath(endpoint: 7, cluster: Cluster.identify, attribute: 0), value: .unsigned(5)) == .identify("plug"))
        let lock = BridgedEndpoint(
            number: 8, accessory: "lock", service: "lock_mechanism", device: .doorLock, characteristics: [:], reachable: true)
        #expect(
            lock.writes(for: AttributePath(endpoint: 8, cluster: Cluster.identify, attribute: 0), value: .unsigned(5)) == .identify("lock"))
    }
}
