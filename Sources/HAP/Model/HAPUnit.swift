/// A characteristic's unit.
public enum HAPUnit: String, Sendable, Hashable, CaseIterable {
    case celsius
    case percentage
    case arcdegrees
    case lux
    case seconds
}
