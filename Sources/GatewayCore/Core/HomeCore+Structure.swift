import Automation
import HomeModel

extension HomeCore {
    /// Homes, rooms and zones: the layout's; a removed home takes its automations with it.
    mutating func runStructure(_ command: StructureCommand) throws -> HomeResult {
        let table = table
        let result = try layout.run(command) { room in table.order.filter { table[$0]?.accessory.room == room } }
        if case .removeHome = command, case .removed(let home) = result {
            for event in automation.removeAll(ofHome: home) { emit(.event(event)) }
        }
        return result
    }

    /// Where an accessory is and what it is called.
    mutating func runAccessories(_ command: AccessoryCommand) throws -> HomeResult {
        switch command {
        case .assignRoom(let reference, let roomReference, let home):
            let id = try knownAccessory(reference)
            let room = try layout.structure.resolveRoom(roomReference, home: try layout.homeScope(home))
            if let current = table[id]?.accessory, current.home != room.home {
                try checkAccessoryName(current.name, in: room.home, for: id)
            }
            try layout.assign(accessory: id, toRoom: room.id)
            return .placement(placement(id))
        case .rename(let reference, let raw):
            let id = try knownAccessory(reference)
            var name: String?
            if let raw {
                name = try Naming.check(raw, for: "accessory").get()
                try checkAccessoryName(name!, in: table[id]?.accessory.home ?? structure.primaryHome, for: id)
            }
            layout.rename(accessory: id, to: name)
            return .placement(placement(id))
        case .renameService(let reference, let service, let raw):
            let id = try knownAccessory(reference)
            guard let accessory = table[id]?.accessory else {
                throw HomeError.notFound("\(id): is not here now, so its services are not known; rename its services once it is back")
            }
            guard accessory[service] != nil else {
                throw HomeError(
                    .notFound, "\(id): no service '\(service)'\(didYouMean(service, accessory.services.map(\.id)))", field: "service")
            }
            let name = try raw.map { try Naming.check($0, for: "service").get() }
            layout.rename(service: service, ofAccessory: id, to: name)
            let now = name ?? table.mappingServiceName(id, service, accessoryName: accessory.name)
            return .serviceName(accessory: id, service: service, name: now)
        case .identify(let reference):
            return try identify(try knownAccessory(reference))
        }
    }

    /// An accessory by id, or by name where the name is one accessory's (names are unique only per home).
    func knownAccessory(_ reference: String) throws -> String {
        if table[reference] != nil || structure.placements[reference] != nil { return reference }
        let order = table.order
        let named = order.filter { table[$0].map { Naming.same($0.accessory.name, reference) } ?? false }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            let which = named.map { "\($0) (\(structure.home(id: table[$0]?.accessory.home ?? "")?.name ?? "?"))" }.joined(
                separator: ", ")
            throw HomeError.conflict("'\(reference)' is the name of several accessories: \(which); use an id")
        }
        throw HomeError.notFound(
            "no accessory '\(reference)'\(didYouMean(reference, order + order.compactMap { table[$0]?.accessory.name }))")
    }

    func checkAccessoryName(_ name: String, in home: String, for id: String) throws {
        try layout.checkAccessoryName(name, in: home, for: id) { table[$0]?.accessory.name }
    }

    func placement(_ id: String) -> AccessoryPlacement {
        let placement = structure.placements[id]
        let room = placement.flatMap { structure.room(id: $0.room) }
        return AccessoryPlacement(id: id, name: placement?.name ?? table.mappingName(id) ?? id, home: room?.home, room: room?.id)
    }
}
