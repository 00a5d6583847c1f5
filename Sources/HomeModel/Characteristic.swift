/// A characteristic on a service: its type, the metadata in force for this device, and its value.
public struct Characteristic: Sendable, Hashable {
    public let type: CharacteristicType
    /// Narrower than the catalogue where the device says so (a bulb's own colour-temperature range).
    public var minValue: Double?
    public var maxValue: Double?
    public var minStep: Double?
    /// Allowed values, when narrower than the catalogue's (a thermostat without cooling).
    public var validValues: [Int]?
    /// The words a string characteristic takes, when only some do (a device setting's choices).
    public var choices: [String]?
    /// nil until the device has said (and for a stateless switch until the first press).
    public var value: CharacteristicValue?
    /// Whether this device takes writes of it: HAP's type allows them, and the device's mapping
    /// says how (a thermostat's display units are writable in HAP, but Zigbee2MQTT may not expose
    /// them as settable). What is not writable here is not offered as writable either.
    public var isWritable: Bool

    public init(
        _ type: CharacteristicType, value: CharacteristicValue? = nil, minValue: Double? = nil, maxValue: Double? = nil,
        minStep: Double? = nil, validValues: [Int]? = nil, choices: [String]? = nil
    ) {
        self.type = type
        self.minValue = minValue ?? type.minValue
        self.maxValue = maxValue ?? type.maxValue
        self.minStep = minStep ?? type.minStep
        self.validValues = validValues ?? (type.validValues.isEmpty ? nil : type.validValues.values.sorted())
        self.value = value
        self.choices = choices
        self.isWritable = type.isWritable
    }

    public var name: String { type.name }

    /// Checks `value` against the metadata and returns it in the format's own case (an integral
    /// `80.0` becomes `80` for an int; `21` becomes `21.0` for a float). With `rounding`, a number
    /// in range is put on the nearest step of the grid from `minValue`: devices report more digits
    /// than HAP carries, and a write made in other units (a Fahrenheit user's 70 °F is 21.1 °C)
    /// falls between steps.
    public func check(_ value: CharacteristicValue, rounding: Bool = false) -> Result<CharacteristicValue, ValueProblem> {
        switch type.format {
        case .bool:
            guard case .bool = value else { return .failure(.wrongType(value, expected: "a bool")) }
            return .success(value)
        case .string, .tlv8, .data:
            guard case .string(let text) = value else { return .failure(.wrongType(value, expected: "a string")) }
            if let limit = type.maxLength ?? (type.format == .string ? 64 : nil), text.utf8.count > limit {
                return .failure(.tooLong(text.utf8.count, maximum: limit))
            }
            if let choices, !choices.contains(text) { return .failure(.notAChoice(text, choices)) }
            return .success(value)
        case .float:
            guard var number = value.doubleValue, number.isFinite else { return .failure(.wrongType(value, expected: "a number")) }
            if rounding, let step = minStep, step > 0 {
                number = (onNearestStep(number, step: step) * 1e6).rounded() / 1e6  // no 21.200000000000003
            }
            if let problem = rangeProblem(number) { return .failure(problem) }
            if let step = minStep, step > 0, !onGrid(number, step: step) {
                return .failure(.offStep(value, step: step, base: minValue ?? 0))
            }
            return .success(.float(number))
        case .uint8, .uint16, .uint32, .uint64, .int:
            guard var integer = value.intValue else {
                if case .float = value { return .failure(.notWhole(value)) }
                return .failure(.wrongType(value, expected: "a whole number"))
            }
            if let range = type.format.integerRange, !range.contains(integer) {
                return .failure(.outOfFormat(integer, range))
            }
            if let valid = validValues, !valid.contains(integer) {
                return .failure(.notValid(integer, allowed: valid, names: type.validValues))
            }
            if rounding, let step = minStep, step > 1, validValues == nil {
                integer = Int(onNearestStep(Double(integer), step: step).rounded())
            }
            if let problem = rangeProblem(Double(integer)) { return .failure(problem) }
            if let step = minStep, step > 1, !onGrid(Double(integer), step: step) {
                return .failure(.offStep(value, step: step, base: minValue ?? 0))
            }
            return .success(.int(integer))
        }
    }

    private func rangeProblem(_ number: Double) -> ValueProblem? {
        if let min = minValue, number < min - 1e-9 { return .belowMinimum(number, min) }
        if let max = maxValue, number > max + 1e-9 { return .aboveMaximum(number, max) }
        return nil
    }

    /// The step of the grid from `minValue` nearest to `number`. A number in range stays in range
    /// (with a maximum off the grid, the nearest step can lie beyond it); one out of range stays
    /// out, to be refused.
    private func onNearestStep(_ number: Double, step: Double) -> Double {
        let base = minValue ?? 0
        var steps = ((number - base) / step).rounded()
        guard rangeProblem(number) == nil else { return base + steps * step }
        if let max = maxValue, base + steps * step > max + 1e-9 { steps -= 1 }
        if let min = minValue, base + steps * step < min - 1e-9 { steps += 1 }
        return base + steps * step
    }

    private func onGrid(_ number: Double, step: Double) -> Bool {
        let steps = (number - (minValue ?? 0)) / step
        return abs(steps - steps.rounded()) < 1e-6
    }

    /// Whether `other` is the same value for this characteristic: floats within a hundredth of a step.
    public func isSame(_ a: CharacteristicValue?, _ b: CharacteristicValue?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        // 23 and 23.0 are the same setpoint: devices report whole numbers as integers.
        switch (a, b) {
        case (.float, .float), (.int, .float), (.float, .int):
            guard let x = a.doubleValue, let y = b.doubleValue else { return false }
            return abs(x - y) <= (minStep ?? 0.0001) / 100
        default:
            return a == b
        }
    }
}
