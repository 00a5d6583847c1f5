import GatewayCore
import HomeModel
import JSON
import Matter

/// A thermostat that cools: Matter's Thermostat with the Cooling feature (and Heating, and AutoMode,
/// as its target_heating_cooling_state's valid values say). The setpoints are the thresholds where
/// the thermostat has them (`heating_threshold_temperature`, `cooling_threshold_temperature`), else
/// HomeKit's one target temperature, which is then both setpoints (the dead band is 0).
/// A thermostat that only heats stays `BridgedDevice.thermostat`.
struct Climate: Sendable, Equatable {
    var heat: Bool
    var cool: Bool
    var auto: Bool
    /// HomeKit's target modes the thermostat takes (0 off, 1 heat, 2 cool, 3 auto).
    var modes: [Int]
    var heatingSetpoint: String
    var coolingSetpoint: String
    var heating: ClosedRange<Double>
    var cooling: ClosedRange<Double>

    init?(_ service: Service) {
        guard service["current_temperature"] != nil, let mode = service["target_heating_cooling_state"] else { return nil }
        let modes = mode.validValues ?? [0, 1, 2, 3]
        let heatingName = service["heating_threshold_temperature"] != nil ? "heating_threshold_temperature" : "target_temperature"
        let coolingName = service["cooling_threshold_temperature"] != nil ? "cooling_threshold_temperature" : "target_temperature"
        guard modes.contains(2), let heating = service[heatingName], let cooling = service[coolingName] else { return nil }
        self.modes = modes
        heat = modes.contains(1)
        cool = true
        auto = modes.contains(3) && heat
        (heatingSetpoint, coolingSetpoint) = (heatingName, coolingName)
        self.heating = Self.range(heating)
        self.cooling = Self.range(cooling)
    }

    static func range(_ characteristic: Characteristic) -> ClosedRange<Double> {
        let low = characteristic.minValue ?? 10
        return low...max(low, characteristic.maxValue ?? 38)
    }

    static func hundredths(_ celsius: Double) -> TLVValue { .signed(Int64((celsius * 100).rounded())) }

    var cluster: [UInt32: TLVValue] {
        var attributes: [UInt32: TLVValue] = [
            0x0000: .null,  // LocalTemperature
            0x0005: Self.hundredths(cooling.lowerBound), 0x0006: Self.hundredths(cooling.upperBound),  // AbsMin/AbsMaxCoolSetpointLimit
            0x0011: Self.hundredths(cooling.upperBound),  // OccupiedCoolingSetpoint
            0x0017: Self.hundredths(cooling.lowerBound), 0x0018: Self.hundredths(cooling.upperBound),  // Min/MaxCoolSetpointLimit
            0x001B: .unsigned(heat ? 4 : 0),  // ControlSequenceOfOperation: cooling and heating, or cooling only
            0x001C: .unsigned(3),  // SystemMode: cool until the thermostat says
            0xFFFC: .unsigned((heat ? 0x01 : 0) | 0x02 | (auto ? 0x20 : 0)),  // Heating, Cooling, AutoMode
            0xFFFD: .unsigned(6),
        ]
        if heat {
            attributes[0x0003] = Self.hundredths(heating.lowerBound)  // AbsMinHeatSetpointLimit
            attributes[0x0004] = Self.hundredths(heating.upperBound)  // AbsMaxHeatSetpointLimit
            attributes[0x0012] = Self.hundredths(heating.lowerBound)  // OccupiedHeatingSetpoint
            attributes[0x0015] = Self.hundredths(heating.lowerBound)  // MinHeatSetpointLimit
            attributes[0x0016] = Self.hundredths(heating.upperBound)  // MaxHeatSetpointLimit
        }
        if auto { attributes[0x0019] = .signed(0) }  // MinSetpointDeadBand
        return attributes
    }

    func attributes(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, UInt32, TLVValue)] {
        switch characteristic {
        case "current_temperature":
            guard let celsius = value.number else { return [] }
            return [(Cluster.thermostat, 0x0000, Self.hundredths(celsius))]
        case "target_heating_cooling_state":
            guard let mode = value.number.flatMap({ SystemMode.matter(homeKit: Int($0)) }) else { return [] }
            return [(Cluster.thermostat, 0x001C, .unsigned(UInt64(mode)))]
        default:
            guard let celsius = value.number else { return [] }
            var attributes: [(UInt32, UInt32, TLVValue)] = []
            if heat, characteristic == heatingSetpoint { attributes.append((Cluster.thermostat, 0x0012, Self.hundredths(celsius))) }
            if characteristic == coolingSetpoint { attributes.append((Cluster.thermostat, 0x0011, Self.hundredths(celsius))) }
            return attributes
        }
    }
}

extension BridgedEndpoint {
    /// OccupiedCoolingSetpoint (0x0011), OccupiedHeatingSetpoint (0x0012) in hundredths of °C, SystemMode (0x001C).
    func climateWrite(_ climate: Climate, _ attribute: UInt32, _ value: TLVValue) -> Invoke {
        switch attribute {
        case 0x0011, 0x0012:
            guard attribute == 0x0011 || climate.heat else { return .refused(.unsupportedAttribute) }
            guard let hundredths = value.integer else { return .refused(.constraintError) }
            let name = attribute == 0x0011 ? climate.coolingSetpoint : climate.heatingSetpoint
            return checked(.writes([write(name, .double(Double(hundredths) / 100))]), notWritable: .unsupportedWrite)
        case 0x001C:
            guard let mode = value.integer.flatMap({ SystemMode.homeKit(matter: Int($0)) }), climate.modes.contains(mode) else {
                return .refused(.constraintError)
            }
            return checked(.writes([write("target_heating_cooling_state", .integer(mode))]), notWritable: .unsupportedWrite)
        default:
            return .refused(.unsupportedWrite)
        }
    }

    /// SetpointRaiseLower {0: Mode (0 heat, 1 cool, 2 both), 1: Amount in tenths of °C}.
    func climateRaiseLower(_ climate: Climate, _ fields: TLVValue) -> Invoke {
        guard let mode = fields[context: 0]?.integer, (0...2).contains(mode), let amount = fields[context: 1]?.integer else {
            return .refused(.constraintError)
        }
        guard mode != 0 || climate.heat else { return .refused(.constraintError) }
        var names: [String] = []
        if mode != 1 && climate.heat { names.append(climate.heatingSetpoint) }
        if mode != 0 && !names.contains(climate.coolingSetpoint) { names.append(climate.coolingSetpoint) }
        var writes: [WriteRequest] = []
        for name in names {
            guard let setpoint = self.value(name) else { return .refused(.constraintError) }
            writes.append(write(name, .double(((setpoint * 10).rounded() + Double(amount)) / 10)))
        }
        return checked(.writes(writes))
    }
}
