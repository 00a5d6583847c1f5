/// A service on an accessory: a HAP service type with an id unique in the accessory.
public struct Service: Sendable, Hashable {
    /// `lightbulb`, `switch_l1`: topic-safe, unique in the accessory.
    public let id: String
    public let type: ServiceType
    public var name: String?
    public var isPrimary: Bool
    public var isHidden: Bool
    public var characteristics: [Characteristic]

    public init(
        id: String, type: ServiceType, name: String? = nil, isPrimary: Bool = false, isHidden: Bool = false,
        characteristics: [Characteristic]
    ) {
        self.id = id
        self.type = type
        self.name = name
        self.isPrimary = isPrimary
        self.isHidden = isHidden
        self.characteristics = characteristics
    }

    public func index(of characteristic: String) -> Int? {
        characteristics.firstIndex { $0.type.name == characteristic }
    }

    public subscript(characteristic: String) -> Characteristic? {
        index(of: characteristic).map { characteristics[$0] }
    }
}
