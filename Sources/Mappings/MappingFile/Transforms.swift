public import JSON

/// The declarative conversions on one side of a binding, applied in a fixed order.
///
/// Device → HomeKit (`state`): map, unit, scale, invert, round, clamp.
/// HomeKit → device (`set`): clamp, invert, scale, unit, round, map.
/// `scale` maps the line from → to in the direction the value travels (a reversed pair falls); `invert` works in HomeKit
/// units (bools flip, numbers mirror within the characteristic's range).
public struct Transforms: Sendable, Hashable {
    public enum Unit: String, Sendable, Hashable { case celsius, fahrenheit }

    /// Values by their text: `{OPEN: 0, CLOSED: 1}`; `mapDefault` for anything else (else an error).
    public var map: [String: JSONValue]?
    public var mapDefault: JSONValue?
    public var scale: (from: (Double, Double), to: (Double, Double))?
    public var invert = false
    public var round: Int?
    public var clamp: ClosedRange<Double>?
    /// What the device speaks; HomeKit speaks Celsius.
    public var unit: Unit?

    public init() {}

    public static func == (a: Transforms, b: Transforms) -> Bool {
        a.map == b.map && a.mapDefault == b.mapDefault && a.scale?.from.0 == b.scale?.from.0 && a.scale?.from.1 == b.scale?.from.1
            && a.scale?.to.0 == b.scale?.to.0 && a.scale?.to.1 == b.scale?.to.1
            && a.invert == b.invert && a.round == b.round && a.clamp == b.clamp && a.unit == b.unit
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(map)
        hasher.combine(invert)
        hasher.combine(round)
    }

    public var isEmpty: Bool { self == Transforms() }

    /// Why a value could not be transformed.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Device value → HomeKit value. `range` is the characteristic's, for `invert`.
    public func incoming(_ value: JSONValue, range: ClosedRange<Double>?) -> Result<JSONValue, Failure> {
        var v = value
        if let map {
            guard let mapped = map[Self.text(v)] ?? mapDefault else {
                return .failure(Failure(description: "\(v.serialized()) is not in the map (\(map.keys.sorted().joined(separator: ", ")))"))
            }
            v = mapped
        }
        if unit == .fahrenheit { v = number(v) { ($0 - 32) * 5 / 9 } }
        if let scale { v = number(v) { Self.linear($0, scale.from, scale.to) } }
        if invert { v = inverted(v, range: range) }
        if let round { v = number(v) { Self.rounded($0, round) } }
        if let clamp { v = number(v) { min(clamp.upperBound, max(clamp.lowerBound, $0)) } }
        return .success(v)
    }

    /// HomeKit value → device value.
    public func outgoing(_ value: JSONValue, range: ClosedRange<Double>?) -> Result<JSONValue, Failure> {
        var v = value
        if let clamp { v = number(v) { min(clamp.upperBound, max(clamp.lowerBound, $0)) } }
        if invert { v = inverted(v, range: range) }
        if let scale { v = number(v) { Self.linear($0, scale.from, scale.to) } }
        if unit == .fahrenheit { v = number(v) { $0 * 9 / 5 + 32 } }
        if let round { v = number(v) { Self.rounded($0, round) } }
        if let map {
            guard let mapped = map[Self.text(v)] ?? mapDefault else {
                return .failure(Failure(description: "\(v.serialized()) is not in the map (\(map.keys.sorted().joined(separator: ", ")))"))
            }
            v = mapped
        }
        return .success(v)
    }

    /// The text a map key is matched against: strings as they are, numbers and bools as JSON.
    static func text(_ value: JSONValue) -> String {
        if case .string(let s) = value { return s }
        if case .double(let d) = value, d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return value.serialized()
    }

    private func number(_ value: JSONValue, _ f: (Double) -> Double) -> JSONValue {
        guard let d = value.doubleValue ?? value.stringValue.flatMap(Double.init) else { return value }
        let result = f(d)
        return result == result.rounded() && abs(result) < 1e15 && value.intValue != nil && round != nil
            ? .integer(Int(result)) : .double(result)
    }

    private func inverted(_ value: JSONValue, range: ClosedRange<Double>?) -> JSONValue {
        if case .bool(let b) = value { return .bool(!b) }
        guard let range else { return value }
        return number(value) { range.lowerBound + range.upperBound - $0 }
    }

    /// The straight line through (from.0, to.0) and (from.1, to.1); a reversed pair falls.
    static func linear(_ x: Double, _ from: (Double, Double), _ to: (Double, Double)) -> Double {
        let span = from.1 - from.0
        guard span != 0 else { return to.0 }
        return to.0 + (x - from.0) * (to.1 - to.0) / span
    }

    static func rounded(_ x: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<max(0, places) { scale *= 10 }
        return (x * scale).rounded() / scale
    }
}
