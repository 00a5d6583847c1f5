/// Why a value does not fit a characteristic, in words for a person.
public enum ValueProblem: Error, Sendable, Hashable, CustomStringConvertible {
    case wrongType(CharacteristicValue, expected: String)
    case notWhole(CharacteristicValue)
    case outOfFormat(Int, ClosedRange<Int>)
    case belowMinimum(Double, Double)
    case aboveMaximum(Double, Double)
    case offStep(CharacteristicValue, step: Double, base: Double)
    case notValid(Int, allowed: [Int], names: [String: Int])
    case tooLong(Int, maximum: Int)
    case notAChoice(String, [String])

    public var description: String {
        switch self {
        case .wrongType(let value, let expected): "\(value) is not \(expected)"
        case .notWhole(let value): "\(value) is not a whole number"
        case .outOfFormat(let value, let range): "\(value) does not fit the format (\(range.lowerBound)...\(range.upperBound))"
        case .belowMinimum(let value, let min): "\(Self.number(value)) is below the minimum \(Self.number(min))"
        case .aboveMaximum(let value, let max): "\(Self.number(value)) is above the maximum \(Self.number(max))"
        case .offStep(let value, let step, let base):
            "\(value) is not a multiple of the step \(Self.number(step)) from \(Self.number(base))"
        case .notValid(let value, let allowed, let names):
            "\(value) is not one of the valid values \(allowed.map { v in names.first { $0.value == v }.map { "\(v) (\($0.key))" } ?? "\(v)" }.joined(separator: ", "))"
        case .tooLong(let count, let maximum): "a string of \(count) bytes is longer than the maximum \(maximum)"
        case .notAChoice(let text, let choices):
            "\(String(reflecting: text)) is not one of \(choices.map { String(reflecting: $0) }.joined(separator: ", "))"
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// What the home model refuses, naming the accessory, service and characteristic.
public enum HomeModelError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownAccessory(String)
    case unknownService(accessory: String, service: String)
    case unknownCharacteristic(accessory: String, service: String, characteristic: String)
    case invalidValue(accessory: String, service: String, characteristic: String, ValueProblem)
    case readOnly(accessory: String, service: String, characteristic: String)
    /// Writable in HAP, but this device's mapping gives no way to write it.
    case notWritableHere(accessory: String, service: String, characteristic: String)
    /// The accessory is in another home than the action set or trigger that names it.
    case otherHome(accessory: String, home: String)

    public var description: String {
        switch self {
        case .unknownAccessory(let a): "\(a): no such accessory"
        case .unknownService(let a, let s): "\(a)/\(s): no such service"
        case .unknownCharacteristic(let a, let s, let c): "\(a)/\(s)/\(c): no such characteristic"
        case .invalidValue(let a, let s, let c, let problem): "\(a)/\(s)/\(c): \(problem)"
        case .readOnly(let a, let s, let c): "\(a)/\(s)/\(c): is read-only"
        case .notWritableHere(let a, let s, let c): "\(a)/\(s)/\(c): this device's mapping gives no way to write it"
        case .otherHome(let a, let home): "\(a): is in home '\(home)', not in this one"
        }
    }
}
