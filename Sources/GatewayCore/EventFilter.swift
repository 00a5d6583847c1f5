/// What a client wants: each list empty means any.
public struct EventFilter: Sendable, Hashable {
    public var types: Set<String> = []
    public var accessories: Set<String> = []
    public var services: Set<String> = []
    public var characteristics: Set<String> = []

    public init(types: Set<String> = [], accessories: Set<String> = [], services: Set<String> = [], characteristics: Set<String> = []) {
        self.types = types
        self.accessories = accessories
        self.services = services
        self.characteristics = characteristics
    }

    public func matches(_ event: StreamEvent) -> Bool {
        func allows(_ wanted: Set<String>, _ value: String?) -> Bool { wanted.isEmpty || value.map(wanted.contains) == true }
        return allows(types, event.type) && allows(accessories, event.accessory) && allows(services, event.service)
            && allows(characteristics, event.characteristic)
    }
}
