import GatewayCore
import HomeModel
import JSON
import Matter

/// A fan (HomeKit's `fan` with `on`, or `fanv2` with `active`) as Matter's Fan Control (cluster
/// 0x0202, revision 4): FanMode and PercentSetting written by the controller, PercentCurrent read,
/// Step, Auto where the fan has `target_fan_state`, AirflowDirection where it has `rotation_direction`.
/// FanMode, PercentSetting and PercentCurrent all come from the power, the speed and the auto state
/// together, so they are worked out from the endpoint's characteristics after each change.
struct Fan: Sendable, Equatable {
    /// `active` (fanv2) or `on` (fan).
    var power: String
    /// The speeds the fan offers (`rotation_speed`'s step: 33 % is three), 0 without `rotation_speed`.
    var speeds: Int
    /// Whether `rotation_speed` moves in those steps (33, 66, 99: shown as 33, 66, 100), or by the percent.
    var stepped: Bool
    var auto: Bool
    var direction: Bool

    init(_ service: Service) {
        power = service.type.name == "fanv2" ? "active" : "on"
        if let speed = service["rotation_speed"] {
            let step = speed.minStep ?? 1
            stepped = step >= 20
            speeds = stepped ? max(1, Int((100 / step).rounded())) : 3
        } else {
            (speeds, stepped) = (0, false)
        }
        auto = service["target_fan_state"] != nil
        direction = service["rotation_direction"] != nil
    }

    init(power: String, speeds: Int, stepped: Bool, auto: Bool, direction: Bool) {
        (self.power, self.speeds, self.stepped, self.auto, self.direction) = (power, speeds, stepped, auto, direction)
    }

    /// Each speed's percentage, as the house's fan mapping levels them (33, 66, 100 for three).
    var levels: [Int] { speeds == 0 ? [100] : (1...speeds).map { $0 * 100 / speeds } }
    /// FanMode's values for the speeds: Low, Medium, High; Low and High; High.
    var speedModes: [Int] { speeds >= 3 ? [1, 2, 3] : speeds == 2 ? [1, 3] : [3] }

    /// FanModeSequence: Off/Low/Med/High (0), Off/Low/High (1), and with Auto (2, 3); Off/High/Auto (4), Off/High (5).
    var sequence: Int {
        switch speedModes.count {
        case 3: auto ? 2 : 0
        case 2: auto ? 3 : 1
        default: auto ? 4 : 5
        }
    }

    func cluster(_ service: Service) -> [UInt32: TLVValue] {
        var attributes: [UInt32: TLVValue] = [
            0x0001: .unsigned(UInt64(sequence)),  // FanModeSequence
            0xFFFC: .unsigned((auto ? 0x02 : 0) | 0x10 | (direction ? 0x20 : 0)),  // Auto, Step, AirflowDirection
            0xFFFD: .unsigned(4),
        ]
        for (attribute, value) in values({ service[$0]?.value }) { attributes[attribute] = value }
        return attributes
    }

    /// Whether a change of this characteristic changes the cluster's attributes.
    func follows(_ characteristic: String) -> Bool {
        [power, "rotation_speed", "target_fan_state", "rotation_direction"].contains(characteristic)
    }

    /// FanMode, PercentSetting, PercentCurrent (and AirflowDirection) from the fan's values.
    func values(_ value: (String) -> CharacteristicValue?) -> [(UInt32, TLVValue)] {
        let on = value(power)?.boolValue ?? false
        var percent = on ? min(100, max(0, Int((value("rotation_speed")?.number ?? 100).rounded()))) : 0
        let speed = levels.firstIndex { percent <= $0 } ?? levels.count - 1
        if stepped, percent > 0 { percent = levels[speed] }
        let mode: Int
        if !on {
            mode = 0
        } else if auto, value("target_fan_state")?.number == 1 {
            mode = 5
        } else {
            mode = speedModes[min(speedModes.count - 1, speed)]
        }
        var values: [(UInt32, TLVValue)] = [
            (0x0000, .unsigned(UInt64(mode))), (0x0002, .unsigned(UInt64(percent))), (0x0003, .unsigned(UInt64(percent))),
        ]
        if direction {  // HomeKit: 0 clockwise, 1 counter-clockwise; Matter: 0 forward, 1 reverse
            values.append((0x000B, .unsigned(value("rotation_direction")?.number == 1 ? 1 : 0)))
        }
        return values
    }
}

extension BridgedEndpoint {
    /// Attributes worked out from several characteristics, after `characteristic` changed.
    func derived(_ characteristic: String) -> [(UInt32, UInt32, TLVValue)] {
        guard case .fan(let fan) = device, fan.follows(characteristic) else { return [] }
        return fan.values { characteristics[$0]?.value }.map { (Cluster.fanControl, $0.0, $0.1) }
    }

    /// FanMode (0x0000), PercentSetting (0x0002) and AirflowDirection (0x000B) written.
    func fanWrite(_ fan: Fan, _ attribute: UInt32, _ value: TLVValue) -> Invoke {
        guard let number = value.integer else {
            return attribute == 0x0002 && value == .null ? .writes([]) : .refused(.constraintError)  // null: no change
        }
        switch attribute {
        case 0x0000:
            switch number {
            case 0: return fanPercent(fan, 0)
            case 1...3:  // Low, Medium, High; a mode the fan lacks is the next one it has
                let index = fan.speedModes.firstIndex { $0 >= number } ?? fan.speedModes.count - 1
                return fanPercent(fan, fan.levels[min(index, fan.levels.count - 1)])
            case 4: return fanPercent(fan, 100)  // On: High
            case 5, 6:  // Auto, Smart
                guard fan.auto else { return .refused(.constraintError) }
                return .writes(poweredOn(fan) + [write("target_fan_state", .integer(1))])
            default: return .refused(.constraintError)
            }
        case 0x0002:
            guard (0...100).contains(number) else { return .refused(.constraintError) }
            return fanPercent(fan, Int(number))
        case 0x000B where fan.direction:
            guard number == 0 || number == 1 else { return .refused(.constraintError) }
            return .writes([write("rotation_direction", .integer(Int(number)))])
        default:
            return .refused(.unsupportedWrite)
        }
    }

    /// Step {0: Direction (0 up, 1 down), 1: Wrap, 2: LowestOff}: one speed up or down.
    func fanStep(_ fan: Fan, _ fields: TLVValue) -> Invoke {
        guard let direction = fields[context: 0]?.integer, direction == 0 || direction == 1 else { return .refused(.constraintError) }
        let wrap = fields[context: 1]?.boolValue ?? false
        let lowestOff = fields[context: 2]?.boolValue ?? true
        let steps = (lowestOff ? [0] : []) + fan.levels
        let on = characteristics[fan.power]?.value?.boolValue ?? false
        let percent = on ? Int((characteristics["rotation_speed"]?.value?.number ?? 100).rounded()) : 0
        let now = steps.firstIndex { percent <= $0 } ?? steps.count - 1
        var next = now + (direction == 0 ? 1 : -1)
        if !steps.indices.contains(next) { next = wrap ? (next < 0 ? steps.count - 1 : 0) : now }
        return fanPercent(fan, steps[next])
    }

    /// A percentage as the fan's writes: 0 switches it off; another switches it on (when off),
    /// leaves auto (when in it) and sets the speed, the speed last.
    private func fanPercent(_ fan: Fan, _ percent: Int) -> Invoke {
        guard percent > 0 else { return .writes([write(fan.power, fan.power == "active" ? .integer(0) : .bool(false))]) }
        var writes = poweredOn(fan)
        if fan.auto, characteristics["target_fan_state"]?.value?.number == 1 { writes.append(write("target_fan_state", .integer(0))) }
        if fan.speeds > 0 { writes.append(write("rotation_speed", .integer(percent))) }
        return .writes(writes.isEmpty ? [write(fan.power, fan.power == "active" ? .integer(1) : .bool(true))] : writes)
    }

    private func poweredOn(_ fan: Fan) -> [WriteRequest] {
        characteristics[fan.power]?.value?.boolValue == true ? [] : [write(fan.power, fan.power == "active" ? .integer(1) : .bool(true))]
    }
}
