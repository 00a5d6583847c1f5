/// A HAP service type: which characteristics it must and may have.
public struct ServiceType: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let hapName: String
    public let uuid: String
    public let required: [CharacteristicType]
    public let optional: [CharacteristicType]
    /// Takes any characteristic of homegate's own besides `optional` (a device's settings).
    public let acceptsCustom: Bool

    public init(
        name: String, hapName: String, uuid: String, required: [CharacteristicType], optional: [CharacteristicType],
        acceptsCustom: Bool = false
    ) {
        self.name = name
        self.hapName = hapName
        self.uuid = uuid
        self.required = required
        self.optional = optional
        self.acceptsCustom = acceptsCustom
    }

    public var description: String { name }

    /// Whether a characteristic of this type may appear on the service.
    public func allows(_ characteristic: CharacteristicType) -> Bool {
        required.contains(characteristic) || optional.contains(characteristic) || characteristic == .name
            || (acceptsCustom && characteristic.isCustom)
    }

    /// A device's settings that HAP has no place for (a child lock, a power-on behaviour, an LED):
    /// homegate's own service, one characteristic per setting.
    public static let settings = ServiceType(
        name: "settings", hapName: "HomegateSettings", uuid: CharacteristicType.homegateUUID("service:settings"),
        required: [], optional: [], acceptsCustom: true)

    /// Eve's air pressure sensor, which the Eve app shows.
    public static let air_pressure_sensor = ServiceType(
        name: "air_pressure_sensor", hapName: "EveAirPressureSensor",
        uuid: "E863F00A-079E-48FF-8F27-9C2605A29F52", required: [.air_pressure], optional: [])

    private static let byName: [String: ServiceType] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    public static func named(_ name: String) -> ServiceType? { byName[name] }

    public static func == (a: ServiceType, b: ServiceType) -> Bool { a.uuid == b.uuid }
    public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}
