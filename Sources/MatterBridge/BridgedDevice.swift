import HomeModel
import Matter

/// What one service of the house is in Matter: a device type and the clusters that carry its
/// characteristics. A service with no counterpart here is not bridged.
enum BridgedDevice: Sendable, Equatable {
    /// On/Off Light, Dimmable Light or Color Temperature Light, by what the lightbulb has.
    case light(dimmable: Bool, colorTemperature: ClosedRange<Int>?)
    /// A dimmable lightbulb with hue and saturation: Extended Color Light (see BridgedDevice+Color.swift);
    /// `colorTemperature` is the bulb's own range, nil when it has none.
    case colorLight(colorTemperature: ClosedRange<Int>?)
    /// An outlet or a switch: On/Off Plug-in Unit.
    case plug
    case contact
    /// `characteristic`: `motion_detected` or `occupancy_detected`.
    case occupancy(characteristic: String)
    case temperature
    case humidity
    /// A blind, curtain or shade by its lift: Window Covering with position-aware lift.
    case windowCovering
    /// A heating thermostat (a radiator valve): its setpoint range in °C.
    case thermostat(setpoint: ClosedRange<Double>)
    /// A button (a stateless programmable switch): Generic Switch, its presses as Matter events.
    case genericSwitch
    /// Pressure, light, air quality, smoke/CO and leak sensors (BridgedDevice+Sensors.swift).
    case sensor(Sensor)
    /// A lock mechanism: Door Lock (BridgedDevice+Lock.swift).
    case doorLock
    /// A fan (`fan` or `fanv2`): Fan (BridgedDevice+Fan.swift).
    case fan(Fan)
    /// A thermostat that cools (or heats and cools): Thermostat with Cooling (BridgedDevice+Climate.swift).
    case climate(Climate)

    init?(_ service: Service) {
        func has(_ name: String) -> Bool { service[name] != nil }
        if service.type.name == "thermostat", let climate = Climate(service) {
            self = .climate(climate)
            return
        }
        switch service.type.name {
        case "lightbulb" where has("on") && has("brightness") && has("hue") && has("saturation"):
            self = .colorLight(colorTemperature: Self.colorTemperatureRange(service))
        case "lightbulb" where has("on"):
            self = .light(dimmable: has("brightness"), colorTemperature: Self.colorTemperatureRange(service))
        case "outlet" where has("on"), "switch" where has("on"): self = .plug
        case "contact_sensor" where has("contact_sensor_state"): self = .contact
        case "motion_sensor" where has("motion_detected"): self = .occupancy(characteristic: "motion_detected")
        case "occupancy_sensor" where has("occupancy_detected"): self = .occupancy(characteristic: "occupancy_detected")
        case "temperature_sensor" where has("current_temperature"): self = .temperature
        case "humidity_sensor" where has("current_relative_humidity"): self = .humidity
        case "window_covering" where has("target_position") && has("current_position"): self = .windowCovering
        case "stateless_programmable_switch" where has("programmable_switch_event"): self = .genericSwitch
        case "lock_mechanism" where has("lock_current_state") && has("lock_target_state"): self = .doorLock
        case "fan" where has("on"), "fanv2" where has("active"): self = .fan(Fan(service))
        case "thermostat" where has("target_temperature") && has("current_temperature") && has("target_heating_cooling_state"):
            let target = service["target_temperature"]
            self = .thermostat(setpoint: (target?.minValue ?? 10)...(target?.maxValue ?? 38))
        case "air_pressure_sensor", "light_sensor", "air_quality_sensor", "smoke_sensor", "carbon_monoxide_sensor", "leak_sensor":
            guard let sensor = Sensor(service) else { return nil }
            self = .sensor(sensor)
        default: return nil
        }
    }

    /// The Matter device type and its revision (Matter Device Library).
    var deviceType: (type: UInt32, revision: UInt16) {
        switch self {
        case .light(_, _?): (0x010C, 4)  // Color Temperature Light
        case .light(true, nil): (0x0101, 3)  // Dimmable Light
        case .light(false, nil): (0x0100, 3)  // On/Off Light
        case .colorLight: (0x010D, 4)  // Extended Color Light
        case .plug: (0x010A, 3)  // On/Off Plug-in Unit
        case .contact: (0x0015, 1)  // Contact Sensor
        case .occupancy: (0x0107, 4)  // Occupancy Sensor
        case .temperature: (0x0302, 2)  // Temperature Sensor
        case .humidity: (0x0307, 2)  // Humidity Sensor
        case .windowCovering: (0x0202, 4)  // Window Covering
        case .thermostat: (0x0301, 4)  // Thermostat
        case .genericSwitch: (0x000F, 3)  // Generic Switch
        case .sensor(let sensor): sensor.deviceType
        case .doorLock: (0x000A, 3)  // Door Lock
        case .fan: (0x002B, 3)  // Fan
        case .climate: (0x0301, 4)  // Thermostat
        }
    }

    /// The device's own clusters with the service's values (Descriptor and Bridged Device Basic
    /// Information are the endpoint's, see `EndpointLayout`).
    func clusters(_ service: Service) -> [UInt32: DataModel.Cluster] {
        var clusters: [UInt32: [UInt32: TLVValue]] = [:]
        switch self {
        case .light(let dimmable, let temperature):
            clusters = Self.lightClusters(service, dimmable: dimmable, colorTemperature: temperature, hueSaturation: false)
        case .colorLight(let temperature):
            clusters = Self.lightClusters(
                service, dimmable: true, colorTemperature: temperature ?? Self.defaultColorTemperature, hueSaturation: true)
        case .plug:
            clusters[Cluster.onOff] = Self.onOffCluster
        case .contact:
            clusters[Cluster.booleanState] = [0x0000: .bool(false), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(1)]
        case .occupancy:
            clusters[Cluster.occupancySensing] = [
                0x0000: .unsigned(0), 0x0001: .unsigned(0), 0x0002: .unsigned(1),  // Occupancy; PIR
                0xFFFC: .unsigned(0), 0xFFFD: .unsigned(4),
            ]
        case .temperature:
            clusters[Cluster.temperatureMeasurement] = [
                0x0000: .null, 0x0001: .signed(-27315), 0x0002: .signed(32767), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(4),
            ]
        case .windowCovering:
            clusters[Cluster.windowCovering] = [
                0x0000: .unsigned(0),  // Type: roller shade
                0x0007: .unsigned(0x09),  // ConfigStatus: operational, lift position aware
                0x000A: .unsigned(0),  // OperationalStatus
                0x000B: .null,  // TargetPositionLiftPercent100ths
                0x000D: .unsigned(0),  // EndProductType: roller shade
                0x000E: .null,  // CurrentPositionLiftPercent100ths
                0x0017: .unsigned(0),  // Mode
                0xFFFC: .unsigned(0x05),  // Lift, PositionAwareLift
                0xFFFD: .unsigned(5),
            ]
        case .thermostat(let setpoint):
            let low = TLVValue.signed(Int64((setpoint.lowerBound * 100).rounded()))
            let high = TLVValue.signed(Int64((setpoint.upperBound * 100).rounded()))
            clusters[Cluster.thermostat] = [
                0x0000: .null,  // LocalTemperature
                0x0003: low, 0x0004: high,  // AbsMinHeatSetpointLimit, AbsMaxHeatSetpointLimit
                0x0012: low,  // OccupiedHeatingSetpoint
                0x0015: low, 0x0016: high,  // MinHeatSetpointLimit, MaxHeatSetpointLimit
                0x001B: .unsigned(2),  // ControlSequenceOfOperation: heating only
                0x001C: .unsigned(4),  // SystemMode: heat
                0xFFFC: .unsigned(0x01),  // Heating
                0xFFFD: .unsigned(6),
            ]
        case .genericSwitch:
            clusters[Cluster.switch] = [
                0x0000: .unsigned(2),  // NumberOfPositions
                0x0001: .unsigned(0),  // CurrentPosition
                0x0002: .unsigned(2),  // MultiPressMax
                0xFFFC: .unsigned(0x1E),  // MomentarySwitch, Release, LongPress, MultiPress
                0xFFFD: .unsigned(2),
            ]
        case .humidity:
            clusters[Cluster.relativeHumidityMeasurement] = [
                0x0000: .null, 0x0001: .unsigned(0), 0x0002: .unsigned(10000), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(3),
            ]
        case .sensor(let sensor):
            clusters = sensor.clusters(service)
        case .doorLock: clusters[Cluster.doorLock] = Self.doorLockCluster
        case .fan(let fan): clusters[Cluster.fanControl] = fan.cluster(service)
        case .climate(let climate): clusters[Cluster.thermostat] = climate.cluster
        }
        if case .windowCovering = self, Tilt.tilts(service) { Tilt.add(to: &clusters) }
        if clusters[Cluster.thermostat] != nil, service["current_heating_cooling_state"] != nil {
            clusters[Cluster.thermostat]?[0x0029] = .unsigned(0)  // ThermostatRunningState: idle until it says
        }
        Self.addIdentify(to: &clusters)  // BridgedDevice+Identify.swift
        for characteristic in service.characteristics {
            guard let value = characteristic.value else { continue }
            for (cluster, attribute, matter) in attributes(characteristic.name, value) {
                clusters[cluster]?[attribute] = matter
            }
        }
        return clusters.mapValues { DataModel.Cluster(attributes: $0) }
    }

    /// The attributes a characteristic's value sets: (cluster, attribute, value).
    func attributes(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, UInt32, TLVValue)] {
        switch (self, characteristic) {
        case (.light, "on"), (.colorLight, "on"), (.plug, "on"):
            return value.boolValue.map { [(Cluster.onOff, 0x0000, .bool($0))] } ?? []
        case (.light(true, _), "brightness"), (.colorLight, "brightness"):
            return value.number.map { [(Cluster.levelControl, 0x0000, .unsigned(UInt64(PercentScale.matter(percent: $0, lowest: 1))))] }
                ?? []
        case (.colorLight, "hue"):
            return value.number.map { [(Cluster.colorControl, 0x0000, .unsigned(UInt64(ColorScale.hue(degrees: $0))))] } ?? []
        case (.colorLight, "saturation"):
            return value.number.map { [(Cluster.colorControl, 0x0001, .unsigned(UInt64(PercentScale.matter(percent: $0))))] } ?? []
        case (.light(_, let range?), "color_temperature"), (.colorLight(let range?), "color_temperature"):
            guard let mireds = value.number else { return [] }
            return [(Cluster.colorControl, 0x0007, .unsigned(UInt64(min(max(Int(mireds.rounded()), range.lowerBound), range.upperBound))))]
        case (.contact, "contact_sensor_state"):
            // HAP: 0 contact detected (closed); Matter's StateValue: true when in contact.
            return value.number.map { [(Cluster.booleanState, 0x0000, .bool($0 == 0))] } ?? []
        case (.occupancy(let name), _) where name == characteristic:
            return value.boolValue.map { [(Cluster.occupancySensing, 0x0000, .unsigned($0 ? 1 : 0))] } ?? []
        case (.temperature, "current_temperature"):
            return value.number.map { [(Cluster.temperatureMeasurement, 0x0000, .signed(Int64(($0 * 100).rounded())))] } ?? []
        case (.humidity, "current_relative_humidity"):
            return value.number.map { [(Cluster.relativeHumidityMeasurement, 0x0000, .unsigned(UInt64(max(0, ($0 * 100).rounded()))))] }
                ?? []
        case (.windowCovering, "current_position"), (.windowCovering, "target_position"):
            // HomeKit: percent open; Matter: hundredths of a percent closed.
            guard let open = value.number else { return [] }
            return [
                (Cluster.windowCovering, characteristic == "current_position" ? 0x000E : 0x000B, .unsigned(Lift.closed100ths(open: open)))
            ]
        case (.thermostat, "current_temperature"), (.thermostat, "target_temperature"):
            guard let celsius = value.number else { return [] }
            return [
                (Cluster.thermostat, characteristic == "current_temperature" ? 0x0000 : 0x0012, .signed(Int64((celsius * 100).rounded())))
            ]
        case (.thermostat, "current_heating_cooling_state"), (.climate, "current_heating_cooling_state"):
            // HomeKit: 0 idle, 1 heating, 2 cooling; Matter's ThermostatRunningState: bit 0 heat, bit 1 cool.
            guard let state = value.number, [0, 1, 2].contains(state) else { return [] }
            return [(Cluster.thermostat, 0x0029, .unsigned(state == 1 ? 0x01 : state == 2 ? 0x02 : 0))]
        case (.thermostat, "target_heating_cooling_state"):
            guard let mode = value.number.flatMap({ SystemMode.matter(homeKit: Int($0)) }) else { return [] }
            return [(Cluster.thermostat, 0x001C, .unsigned(UInt64(mode)))]
        case (.windowCovering, "position_state"):
            // HomeKit: 0 closing, 1 opening, 2 stopped; Matter: the global and the lift field, 1 opening, 2 closing.
            let state: UInt64 = value.number == 0 ? 2 : value.number == 1 ? 1 : 0
            return [(Cluster.windowCovering, 0x000A, .unsigned(state | state << 2))]
        case (.sensor(let sensor), _):
            return sensor.attributes(characteristic, value)
        case (.windowCovering, _) where Tilt.characteristics.contains(characteristic):
            return Tilt.attributes(characteristic, value)
        case (.doorLock, _): return Self.doorLockAttributes(characteristic, value)
        case (.climate(let climate), _): return climate.attributes(characteristic, value)
        default:
            return []
        }
    }
}

extension BridgedDevice {
    /// The Switch cluster's events a press stands for (HomeKit: 0 single, 1 double, 2 long), in
    /// order: (event id, fields). A press has no attribute of its own to report.
    func events(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, [TLVElement])] {
        guard case .genericSwitch = self, characteristic == "programmable_switch_event", let press = value.number else { return [] }
        let position = [TLVElement(.context(0), .unsigned(1))]  // NewPosition / PreviousPosition
        func complete(_ count: UInt64) -> (UInt32, [TLVElement]) {
            (0x06, position + [TLVElement(.context(1), .unsigned(count))])  // MultiPressComplete {1: TotalNumberOfPressesCounted}
        }
        switch press {
        case 0: return [(0x01, position), (0x03, position), complete(1)]  // InitialPress, ShortRelease
        case 1:  // InitialPress, ShortRelease, MultiPressOngoing {1: CurrentNumberOfPressesCounted}, InitialPress, ShortRelease
            return [
                (0x01, position), (0x03, position), (0x05, position + [TLVElement(.context(1), .unsigned(2))]), (0x01, position),
                (0x03, position), complete(2),
            ]
        case 2: return [(0x01, position), (0x02, position), (0x04, position)]  // InitialPress, LongPress, LongRelease
        default: return []
        }
    }
}

/// HomeKit's heating/cooling state (0 off, 1 heat, 2 cool, 3 auto) and Matter's SystemMode (0 off, 1 auto, 3 cool, 4 heat).
enum SystemMode {
    static let pairs: [(homeKit: Int, matter: Int)] = [(0, 0), (1, 4), (2, 3), (3, 1)]
    static func matter(homeKit: Int) -> Int? { pairs.first { $0.homeKit == homeKit }?.matter }
    static func homeKit(matter: Int) -> Int? { pairs.first { $0.matter == matter }?.homeKit }
}

/// HomeKit's position (percent open) and Matter's lift (hundredths of a percent closed).
enum Lift {
    static func closed100ths(open: Double) -> UInt64 { UInt64(min(10000, max(0, ((100 - open) * 100).rounded()))) }
    static func open(closed100ths: Int) -> Int { 100 - Int((Double(closed100ths) / 100).rounded()) }
}

/// The application clusters the bridge serves.
enum Cluster {
    static let descriptor: UInt32 = 0x001D
    static let identify: UInt32 = 0x0003
    static let bridgedDeviceBasicInformation: UInt32 = 0x0039
    static let onOff: UInt32 = 0x0006
    static let levelControl: UInt32 = 0x0008
    static let colorControl: UInt32 = 0x0300
    static let booleanState: UInt32 = 0x0045
    static let occupancySensing: UInt32 = 0x0406
    static let temperatureMeasurement: UInt32 = 0x0402
    static let relativeHumidityMeasurement: UInt32 = 0x0405
    static let windowCovering: UInt32 = 0x0102
    static let thermostat: UInt32 = 0x0201
    static let `switch`: UInt32 = 0x003B
    static let doorLock: UInt32 = 0x0101
    static let fanControl: UInt32 = 0x0202
}

/// The house's percentages and Matter's 0–254: brightness and CurrentLevel (at least 1), saturation
/// and CurrentSaturation.
enum PercentScale {
    static func matter(percent: Double, lowest: Int = 0) -> Int {
        Int(min(254, max(Double(lowest), (percent * 254 / 100).rounded())))  // clamped as a Double: no trap on infinity
    }
    static func percent(matter: Int) -> Double { Double(min(254, max(0, matter))) * 100 / 254 }
}

extension CharacteristicValue {
    var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .int(let value): value != 0
        default: nil
        }
    }

    var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .float(let value): value
        case .bool(let value): value ? 1 : 0
        case .string: nil
        }
    }
}
