/// A HAP service type: which characteristics it must and may have.
public struct ServiceType: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let hapName: String
    public let uuid: String
    public let required: [CharacteristicType]
    public let optional: [CharacteristicType]

    public init(name: String, hapName: String, uuid: String, required: [CharacteristicType], optional: [CharacteristicType]) {
        self.name = name
        self.hapName = hapName
        self.uuid = uuid
        self.required = required
        self.optional = optional
    }

    public var description: String { name }

    /// Whether a characteristic of this type may appear on the service.
    public func allows(_ characteristic: CharacteristicType) -> Bool {
        required.contains(characteristic) || optional.contains(characteristic) || characteristic == .name
    }

    private static let byName: [String: ServiceType] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    public static func named(_ name: String) -> ServiceType? { byName[name] }

    public static func == (a: ServiceType, b: ServiceType) -> Bool { a.uuid == b.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}
