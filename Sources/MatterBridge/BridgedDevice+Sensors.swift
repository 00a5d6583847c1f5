import Foundation
import HomeModel
import Matter

/// The house's other readings in Matter: air pressure, light, air quality, smoke and carbon
/// monoxide alarms, water leaks. Read only: nothing of theirs is written.
enum Sensor: Sendable, Equatable {
    /// Eve's air pressure (hPa): Pressure Sensor.
    case pressure
    /// Light Sensor, from the light level in lux.
    case light
    /// Air Quality Sensor, with a concentration cluster for each density the service has
    /// (`pm2_5_density`, `pm10_density`, `voc_density`) and for its carbon dioxide
    /// (`carbon_dioxide_level`, in ppm).
    case airQuality(densities: [String])
    /// Smoke CO Alarm with one feature: a smoke sensor's or a carbon monoxide sensor's.
    case alarm(Alarm)
    /// Water Leak Detector (BooleanState: true while a leak is detected).
    case leak

    enum Alarm: Sendable, Equatable {
        case smoke, carbonMonoxide
    }

    /// The densities HAP has and their Matter concentration clusters (µg/m³), and carbon dioxide (ppm).
    static let concentrations: [(characteristic: String, cluster: UInt32)] = [
        ("pm2_5_density", Cluster.pm25ConcentrationMeasurement), ("pm10_density", Cluster.pm10ConcentrationMeasurement),
        ("voc_density", Cluster.tvocConcentrationMeasurement),
        ("carbon_dioxide_level", Cluster.carbonDioxideConcentrationMeasurement),
    ]

    /// A concentration cluster's MeasurementUnit: ppm (0) for carbon dioxide, as HAP has it; µg/m³ (4) for the densities.
    static func unit(_ characteristic: String) -> UInt64 { characteristic == "carbon_dioxide_level" ? 0 : 4 }

    init?(_ service: Service) {
        func has(_ name: String) -> Bool { service[name] != nil }
        switch service.type.name {
        case "air_pressure_sensor" where has("air_pressure"): self = .pressure
        case "light_sensor" where has("current_ambient_light_level"): self = .light
        case "air_quality_sensor" where has("air_quality"):
            self = .airQuality(densities: Self.concentrations.map(\.characteristic).filter(has))
        case "smoke_sensor" where has("smoke_detected"): self = .alarm(.smoke)
        case "carbon_monoxide_sensor" where has("carbon_monoxide_detected"): self = .alarm(.carbonMonoxide)
        // A gas alarm is a leak sensor only because HomeKit has no gas sensor: not water.
        case "leak_sensor" where has("leak_detected") && !service.id.hasPrefix("gas"): self = .leak
        default: return nil
        }
    }

    var deviceType: (type: UInt32, revision: UInt16) {
        switch self {
        case .pressure: (0x0305, 2)  // Pressure Sensor
        case .light: (0x0106, 3)  // Light Sensor
        case .airQuality: (0x002C, 1)  // Air Quality Sensor
        case .alarm: (0x0076, 1)  // Smoke CO Alarm
        case .leak: (0x0043, 1)  // Water Leak Detector
        }
    }

    /// The clusters before any value: measurements null (unknown) until the device reports.
    func clusters(_ service: Service) -> [UInt32: [UInt32: TLVValue]] {
        switch self {
        case .pressure:
            // kPa×10, that is hPa: Eve's range (300–1100 hPa) as the limits.
            let characteristic = service["air_pressure"]
            return [
                Cluster.pressureMeasurement: [
                    0x0000: .null, 0x0001: .signed(Int64((characteristic?.minValue ?? 300).rounded())),
                    0x0002: .signed(Int64((characteristic?.maxValue ?? 1100).rounded())), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(3),
                ]
            ]
        case .light:
            let high = service["current_ambient_light_level"]?.maxValue.map { TLVValue.unsigned(UInt64(Illuminance.measured(lux: $0))) }
            return [
                Cluster.illuminanceMeasurement: [
                    0x0000: .null, 0x0001: .unsigned(1), 0x0002: high ?? .null, 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(3),
                ]
            ]
        case .airQuality(let densities):
            var clusters: [UInt32: [UInt32: TLVValue]] = [
                // AirQuality unknown; the levels HomeKit's five map to: Fair, Moderate, VeryPoor.
                Cluster.airQuality: [0x0000: .unsigned(0), 0xFFFC: .unsigned(0x07), 0xFFFD: .unsigned(1)]
            ]
            for (characteristic, cluster) in Self.concentrations where densities.contains(characteristic) {
                clusters[cluster] = [
                    0x0000: .null,  // MeasuredValue
                    0x0001: .float(Float(service[characteristic]?.minValue ?? 0)),  // MinMeasuredValue
                    0x0002: .float(Float(service[characteristic]?.maxValue ?? 1000)),  // MaxMeasuredValue
                    0x0008: .unsigned(Self.unit(characteristic)),  // MeasurementUnit
                    0x0009: .unsigned(0),  // MeasurementMedium: air
                    0xFFFC: .unsigned(0x01),  // NumericMeasurement
                    0xFFFD: .unsigned(3),
                ]
            }
            return clusters
        case .alarm(let alarm):
            var attributes: [UInt32: TLVValue] = [
                0x0000: .unsigned(0),  // ExpressedState: normal
                0x0003: .unsigned(0),  // BatteryAlert
                0x0005: .bool(false),  // TestInProgress
                0x0006: .bool(false),  // HardwareFaultAlert
                0x0007: .unsigned(0),  // EndOfServiceAlert: normal
                0xFFFC: .unsigned(alarm == .smoke ? 0x01 : 0x02),  // SmokeAlarm or COAlarm
                0xFFFD: .unsigned(1),
            ]
            attributes[alarm == .smoke ? 0x0001 : 0x0002] = .unsigned(0)  // SmokeState or COState
            if let expressed = expressedState(Dictionary(service.characteristics.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })) {
                attributes[0x0000] = expressed
            }
            return [Cluster.smokeCOAlarm: attributes]
        case .leak:
            return [Cluster.booleanState: [0x0000: .bool(false), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(1)]]
        }
    }

    /// The attributes a characteristic's value sets: (cluster, attribute, value).
    func attributes(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, UInt32, TLVValue)] {
        guard let number = value.number else { return [] }
        switch (self, characteristic) {
        case (.pressure, "air_pressure"):
            return [(Cluster.pressureMeasurement, 0x0000, .signed(Int64(min(32767, max(-32767, number.rounded())))))]
        case (.light, "current_ambient_light_level"):
            return [(Cluster.illuminanceMeasurement, 0x0000, .unsigned(UInt64(Illuminance.measured(lux: number))))]
        case (.airQuality, "air_quality"):
            // HomeKit: 0 unknown, 1 excellent … 5 poor; Matter: 0 unknown, 1 good … 5 very poor, in the same order.
            return [(Cluster.airQuality, 0x0000, .unsigned(UInt64(min(5, max(0, Int(number))))))]
        case (.airQuality(let densities), _) where densities.contains(characteristic):
            guard let cluster = Self.concentrations.first(where: { $0.characteristic == characteristic })?.cluster else { return [] }
            return [(cluster, 0x0000, .float(Float(number)))]
        case (.alarm(.smoke), "smoke_detected"), (.alarm(.carbonMonoxide), "carbon_monoxide_detected"):
            // HomeKit's detected is the alarm sounding: Critical, else Normal.
            return [(Cluster.smokeCOAlarm, characteristic == "smoke_detected" ? 0x0001 : 0x0002, .unsigned(number == 1 ? 2 : 0))]
        case (.alarm, "status_low_battery"):
            return [(Cluster.smokeCOAlarm, 0x0003, .unsigned(number == 1 ? 1 : 0))]  // BatteryAlert: Warning
        case (.alarm, "status_fault"):
            return [(Cluster.smokeCOAlarm, 0x0006, .bool(number != 0))]  // HardwareFaultAlert
        case (.leak, "leak_detected"):
            return [(Cluster.booleanState, 0x0000, .bool(number == 1))]
        default:
            return []
        }
    }

    /// A Smoke CO Alarm's ExpressedState follows from several characteristics: the alarm first,
    /// then a hardware fault, then a low battery. nil for the other sensors.
    func expressedState(_ characteristics: [String: Characteristic]) -> TLVValue? {
        guard case .alarm(let alarm) = self else { return nil }
        func on(_ name: String) -> Bool { characteristics[name]?.value?.number.map { $0 != 0 } ?? false }
        if on(alarm == .smoke ? "smoke_detected" : "carbon_monoxide_detected") { return .unsigned(alarm == .smoke ? 1 : 2) }
        if on("status_fault") { return .unsigned(5) }  // HardwareFault
        if on("status_low_battery") { return .unsigned(3) }  // BatteryAlert
        return .unsigned(0)
    }
}

extension BridgedDevice {
    /// Attributes that follow from the service's values together rather than from one
    /// characteristic (a Smoke CO Alarm's ExpressedState), after a change.
    func combined(_ characteristics: [String: Characteristic]) -> [(UInt32, UInt32, TLVValue)] {
        guard case .sensor(let sensor) = self, let expressed = sensor.expressedState(characteristics) else { return [] }
        return [(Cluster.smokeCOAlarm, 0x0000, expressed)]
    }
}

/// Lux and Illuminance Measurement's MeasuredValue: 10000·log10(lux) + 1, from 1 lux (1) to
/// 3.576 Mlx (0xFFFE); 0 is too little light to measure (HomeKit's 0.0001 lux is its dark room).
enum Illuminance {
    static func measured(lux: Double) -> Int {
        guard lux >= 1 else { return 0 }
        return min(0xFFFE, Int((10000 * log10(lux) + 1).rounded()))
    }
}

extension Cluster {
    static let pressureMeasurement: UInt32 = 0x0403
    static let illuminanceMeasurement: UInt32 = 0x0400
    static let airQuality: UInt32 = 0x005B
    static let pm25ConcentrationMeasurement: UInt32 = 0x042A
    static let pm10ConcentrationMeasurement: UInt32 = 0x042D
    static let tvocConcentrationMeasurement: UInt32 = 0x042E
    static let smokeCOAlarm: UInt32 = 0x005C
    static let carbonDioxideConcentrationMeasurement: UInt32 = 0x040D
}
