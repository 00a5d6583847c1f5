import GatewayCore
import HomeModel
import Matter
import Testing

@testable import MatterBridge

@Suite("sensors and batteries as Matter has them")
struct SensorTests {
    static let weather = Accessory(
        id: "weather", name: "Weather",
        services: [
            Service(
                id: "battery_service", type: .battery_service,
                characteristics: [
                    Characteristic(.battery_level, value: .int(91)), Characteristic(.charging_state, value: .int(2)),
                    Characteristic(.status_low_battery, value: .int(0)),
                ]),
            Service(
                id: "temperature_sensor", type: .temperature_sensor,
                characteristics: [Characteristic(.current_temperature, value: .float(21))]
            ),
            Service(
                id: "air_pressure_sensor", type: .air_pressure_sensor,
                characteristics: [Characteristic(.air_pressure, value: .float(1013.4))]),
        ])
    static let motion = Accessory(
        id: "motion", name: "Motion",
        services: [
            Service(id: "motion_sensor", type: .motion_sensor, characteristics: [Characteristic(.motion_detected, value: .bool(false))]),
            Service(
                id: "light_sensor", type: .light_sensor, characteristics: [Characteristic(.current_ambient_light_level, value: .float(100))]
            ),
        ])
    static let air = Accessory(
        id: "air", name: "Air",
        services: [
            Service(
                id: "air_quality_sensor", type: .air_quality_sensor,
                characteristics: [
                    Characteristic(.air_quality, value: .int(2)), Characteristic(.pm2_5_density, value: .float(14)),
                    Characteristic(.voc_density),
                ])
        ])
    static let alarms = Accessory(
        id: "alarms", name: "Alarms",
        services: [
            Service(
                id: "smoke_sensor", type: .smoke_sensor,
                characteristics: [Characteristic(.smoke_detected, value: .int(0)), Characteristic(.status_low_battery, value: .int(1))]),
            Service(
                id: "carbon_monoxide_sensor", type: .carbon_monoxide_sensor, characteristics: [Characteristic(.carbon_monoxide_detected)]),
            Service(id: "leak_sensor", type: .leak_sensor, characteristics: [Characteristic(.leak_detected, value: .int(1))]),
            Service(id: "gas", type: .leak_sensor, characteristics: [Characteristic(.leak_detected, value: .int(0))]),
        ])

    static func layout(_ accessories: [Accessory]) -> EndpointLayout {
        var map = EndpointMap()
        return EndpointLayout.build(LayoutTests.house(accessories), selection: .everything, map: &map)
    }

    static func deviceTypes(_ layout: EndpointLayout, _ number: UInt16) -> [UInt64] {
        guard case .array(let types)? = layout.clusters[number]?[Cluster.descriptor]?.attributes[0x0000] else { return [] }
        return types.compactMap { element in
            guard case .structure(let fields) = element.value, case .unsigned(let type)? = fields.first?.value else { return nil }
            return type
        }
    }

    @Test("air pressure is a Pressure Sensor in kPa×10 (hPa), light a Light Sensor on Matter's log scale")
    func pressureAndLight() {
        let layout = Self.layout([Self.weather, Self.motion])
        #expect(layout.parts == [2, 3, 4, 5, 6, 7])  // each a composed device: 4 and 7 the parents
        #expect(layout.endpoints[3]?.device == .sensor(.pressure) && layout.endpoints[6]?.device == .sensor(.light))
        #expect(Self.deviceTypes(layout, 3) == [0x0305] && Self.deviceTypes(layout, 6) == [0x0106])  // children
        #expect(Self.deviceTypes(layout, 4) == [0x0013, 0x0011])  // the parent, with the battery's Power Source
        #expect(Self.deviceTypes(layout, 7) == [0x0013])  // no battery
        let pressure = layout.clusters[3]?[Cluster.pressureMeasurement]?.attributes
        #expect(pressure?[0x0000] == .signed(1013) && pressure?[0x0001] == .signed(300) && pressure?[0x0002] == .signed(1100))
        let light = layout.clusters[6]?[Cluster.illuminanceMeasurement]?.attributes
        #expect(light?[0x0000] == .unsigned(20001) && light?[0x0002] == .unsigned(50001))  // 100 lx; HomeKit's 100,000 lx at most
        #expect(Illuminance.measured(lux: 1) == 1 && Illuminance.measured(lux: 1000) == 30001)
        #expect(Illuminance.measured(lux: 0.0001) == 0 && Illuminance.measured(lux: 0) == 0)  // too dark to measure
        #expect(Illuminance.measured(lux: 10_000_000) == 0xFFFE)
        let light0 = BridgedDevice.sensor(.light).attributes("current_ambient_light_level", .float(0.0001))
        #expect(light0.map(\.2) == [.unsigned(0)])
    }

    @Test("air quality keeps HomeKit's order of levels, each density in µg/m³ a concentration cluster, unknown as null")
    func airQuality() {
        let layout = Self.layout([Self.air])
        #expect(layout.endpoints[2]?.device == .sensor(.airQuality(densities: ["pm2_5_density", "voc_density"])))
        #expect(Self.deviceTypes(layout, 2) == [0x002C, 0x0013])
        let clusters = layout.clusters[2]
        #expect(clusters?[Cluster.airQuality]?.attributes[0x0000] == .unsigned(2))  // good: Fair
        #expect(clusters?[Cluster.pm25ConcentrationMeasurement]?.attributes[0x0000] == .float(14))
        #expect(clusters?[Cluster.pm25ConcentrationMeasurement]?.attributes[0x0008] == .unsigned(4))  // µg/m³
        #expect(clusters?[Cluster.tvocConcentrationMeasurement]?.attributes[0x0000] == .null)  // not reported yet
        #expect(clusters?[Cluster.pm10ConcentrationMeasurement] == nil)
        let device = BridgedDevice.sensor(.airQuality(densities: ["pm2_5_density", "voc_density"]))
        #expect(device.attributes("air_quality", .int(5)).map(\.2) == [.unsigned(5)])  // poor: VeryPoor
        #expect(device.attributes("voc_density", .float(120.5)).map(\.1) == [0x0000])
        #expect(device.attributes("pm10_density", .float(3)).isEmpty)
    }

    @Test("smoke and carbon monoxide are Smoke CO Alarms with their feature, a leak a Water Leak Detector, a gas alarm left out")
    func alarms() {
        let layout = Self.layout([Self.alarms])
        #expect(layout.parts == [2, 3, 4, 5])  // the gas alarm has no counterpart; 5 the parent
        #expect(layout.endpoints[2]?.device == .sensor(.alarm(.smoke)) && layout.endpoints[3]?.device == .sensor(.alarm(.carbonMonoxide)))
        #expect(layout.endpoints[4]?.device == .sensor(.leak))
        #expect(Self.deviceTypes(layout, 2) == [0x0076] && Self.deviceTypes(layout, 4) == [0x0043])
        let smoke = layout.clusters[2]?[Cluster.smokeCOAlarm]?.attributes
        #expect(smoke?[0xFFFC] == .unsigned(1) && smoke?[0x0001] == .unsigned(0) && smoke?[0x0002] == nil)
        #expect(smoke?[0x0003] == .unsigned(1) && smoke?[0x0000] == .unsigned(3))  // low battery: BatteryAlert expressed
        let co = layout.clusters[3]?[Cluster.smokeCOAlarm]?.attributes
        #expect(co?[0xFFFC] == .unsigned(2) && co?[0x0002] == .unsigned(0) && co?[0x0000] == .unsigned(0))
        #expect(layout.clusters[4]?[Cluster.booleanState]?.attributes[0x0000] == .bool(true))  // a leak detected
        let alarm = BridgedDevice.sensor(.alarm(.smoke))
        #expect(alarm.attributes("smoke_detected", .int(1)).map(\.2) == [.unsigned(2)])  // Critical
        var characteristics = layout.endpoints[2]?.characteristics ?? [:]
        characteristics["smoke_detected"]?.value = .int(1)
        #expect(alarm.combined(characteristics).map(\.2) == [.unsigned(1)])  // SmokeAlarm before the battery
        characteristics["smoke_detected"]?.value = .int(0)
        characteristics["status_low_battery"]?.value = .int(0)
        #expect(alarm.combined(characteristics).map(\.2) == [.unsigned(0)])
        #expect(BridgedDevice.plug.combined(characteristics).isEmpty)
    }

    @Test("a battery is a Power Source on its accessory's Bridged Node (a parent), half percents, charge level from low battery")
    func powerSource() throws {
        let layout = Self.layout([Self.weather])
        #expect(layout.parts == [2, 3, 4] && layout.batteries == ["weather": "battery_service"] && layout.nodes == ["weather": 4])
        let power = try #require(layout.clusters[4]?[PowerSource.cluster]?.attributes)
        #expect(power[0x000C] == .unsigned(182) && power[0x000E] == .unsigned(0) && power[0x000F] == .bool(false))
        #expect(power[0xFFFC] == .unsigned(0x02) && power[0x001F] == .array([4, 2, 3].map { TLVElement(.unsigned($0)) }))  // EndpointList
        #expect(layout.clusters[2]?[PowerSource.cluster] == nil && layout.clusters[3]?[PowerSource.cluster] == nil)
        let single = Self.layout([Accessory(id: "weather", name: "Weather", services: Array(Self.weather.services.prefix(2)))])
        #expect(single.clusters[2]?[PowerSource.cluster]?.attributes[0x001F] == .array([TLVElement(.unsigned(2))]))
        #expect(Self.deviceTypes(single, 2) == [0x0302, 0x0013, 0x0011])
        let low = CharacteristicChange(
            accessory: "weather", service: "battery_service", characteristic: "status_low_battery", value: .int(1), previous: .int(0),
            source: .device)
        let changes = layout.powerSourceChanges(low)
        #expect(changes.map(\.endpoint) == [4, 4] && changes.map(\.attribute) == [0x000E, 0x000F])
        #expect(changes.map(\.value) == [.unsigned(1), .bool(true)])
        var level = low
        (level.characteristic, level.value) = ("battery_level", .int(15))
        #expect(layout.powerSourceChanges(level).map(\.value) == [.unsigned(30)])
        var other = low
        other.service = "temperature_sensor"  // a sensor's own low battery is not the Power Source's
        #expect(layout.powerSourceChanges(other).isEmpty)
        #expect(Self.layout([Self.motion]).clusters[2]?[PowerSource.cluster] == nil)
    }
}
