import GatewayCore
import HomeModel
import JSON
import Matter

extension BridgedEndpoint {
    /// LevelControl's rate when a Move gives none (null): the whole range in about 5 s.
    static let defaultLevelRate = 50.0

    /// Move (1), Step (2) and their WithOnOff forms (5, 6); MoveToLevel and Stop are in `translate`.
    func level(_ command: UInt32, _ fields: TLVValue) -> Invoke {
        guard let brightness = characteristics["brightness"], let current = brightness.value?.number else {
            return .refused(.unsupportedCommand)
        }
        let withOnOff = command == 5 || command == 6
        // The lowest brightness that is not off: Zigbee2MQTT's brightness 0 switches a light off.
        let lowest = max(1, brightness.minValue ?? 0)
        let highest = min(100, brightness.maxValue ?? 100)
        guard lowest <= highest else { return .refused(.constraintError) }  // a brightness whose maximum is below 1 %
        let isOn = characteristics["on"]?.value?.boolValue ?? true
        switch command {
        case 1, 5:  // Move {0: MoveMode (0 up, 1 down), 1: Rate (level units per second, nullable), 2, 3: options}
            guard let mode = fields[context: 0]?.integer, mode == 0 || mode == 1 else { return .refused(.constraintError) }
            let rate: Double
            switch fields[context: 1] {
            case .null?, nil: rate = Self.defaultLevelRate
            case let value?:
                guard let units = value.integer, units <= 0xFF else { return .refused(.constraintError) }
                rate = Double(units)
            }
            let up = mode == 0
            // Down with OnOff ends in off, where an off light already is.
            guard rate > 0, withOnOff ? up || isOn : executes(fields, maskTag: 2) else { return .writes([]) }
            var ramp = Ramp(
                quantity: .brightness, from: [isOn ? current : lowest], perSecond: [(up ? 1 : -1) * rate * 100 / 254],
                range: lowest...highest)
            if withOnOff && up && !isOn { ramp.first = [write("on", .bool(true))] }
            ramp.offAtBottom = withOnOff && !up
            return checkedRamp(ramp, writing: ["brightness"] + (withOnOff ? ["on"] : []))
        case 2, 6:  // Step {0: StepMode (0 up, 1 down), 1: StepSize, 2: TransitionTime, 3, 4: options}
            guard let mode = fields[context: 0]?.integer, mode == 0 || mode == 1, let size = fields[context: 1]?.integer, size <= 0xFF
            else { return .refused(.constraintError) }
            guard withOnOff ? mode == 0 || isOn : executes(fields, maskTag: 3) else { return .writes([]) }
            let from = isOn ? PercentScale.matter(percent: current, lowest: 1) : 1
            let level = min(254, max(1, from + (mode == 0 ? 1 : -1) * Int(size)))
            let percent = Int(PercentScale.percent(matter: level).rounded())
            let target = write("brightness", .integer(min(Int(highest), max(Int(lowest), percent))))
            guard withOnOff else { return .writes([target]) }
            // With OnOff: up switches the light on, down to the lowest level switches it off.
            if mode == 1 && level <= 1 { return .writes([write("on", .bool(false))]) }
            return .writes(mode == 0 && !isOn ? [write("on", .bool(true)), target] : [target])
        default:
            return .refused(.unsupportedCommand)
        }
    }
}
