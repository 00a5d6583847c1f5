import Automation
import HomeModel
import JSON
import Persistence

extension GatewayCore {
    /// Every command of the home API beyond reading and writing characteristics.
    static let homeCommands: [String: HomeCommand] = [
        "home/list": HomeCommand(changes: false) { core, r in try r.only([]); return core.homesJSON() },
        "home/add": HomeCommand(changes: true) { core, r in
            try r.only(["name"])
            let home = try core.structure.addHome(named: try r.string("name"))
            return core.homeJSON(home)
        },
        "home/rename": HomeCommand(changes: true) { core, r in
            try r.only(["home", "name"])
            let home = try core.structure.resolveHome(try r.string("home"))
            try core.structure.renameHome(home.id, to: try r.string("name"))
            return core.homeJSON(core.structure.home(id: home.id)!)
        },
        "home/set_primary": HomeCommand(changes: true) { core, r in
            try r.only(["home"])
            let home = try core.structure.resolveHome(try r.string("home"))
            try core.structure.setPrimary(home.id)
            return core.homeJSON(home)
        },
        "home/remove": HomeCommand(changes: true) { core, r in
            try r.only(["home"])
            let home = try core.structure.resolveHome(try r.string("home"))
            try core.structure.removeHome(home.id)
            core.removeAutomation(ofHome: home.id)
            return ["removed": .string(home.id)]
        },
        "room/list": HomeCommand(changes: false) { core, r in
            try r.only(["home"])
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            return ["home": .string(home.id), "rooms": .array(core.structure.rooms(in: home.id).map(core.roomJSON))]
        },
        "room/add": HomeCommand(changes: true) { core, r in
            try r.only(["name", "home"])
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            let room = try core.structure.addRoom(named: try r.string("name"), in: home.id)
            return core.roomJSON(room)
        },
        "room/rename": HomeCommand(changes: true) { core, r in
            try r.only(["room", "name", "home"])
            let room = try core.structure.resolveRoom(try r.string("room"), home: try core.homeScope(r))
            try core.structure.renameRoom(room.id, to: try r.string("name"))
            return core.roomJSON(core.structure.room(id: room.id)!)
        },
        "room/remove": HomeCommand(changes: true) { core, r in
            try r.only(["room", "home"])
            let room = try core.structure.resolveRoom(try r.string("room"), home: try core.homeScope(r))
            try core.structure.removeRoom(room.id)
            return ["removed": .string(room.id)]
        },
        "zone/list": HomeCommand(changes: false) { core, r in
            try r.only(["home"])
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            return ["home": .string(home.id), "zones": .array(core.structure.zones(in: home.id).map(core.zoneJSON))]
        },
        "zone/add": HomeCommand(changes: true) { core, r in
            try r.only(["name", "home", "rooms"])
            let home = try core.structure.resolveHome(try r.optionalString("home"))
            let rooms = try (try r.strings("rooms") ?? []).map { try core.structure.resolveRoom($0, home: home.id).id }
            let zone = try core.structure.addZone(named: try r.string("name"), in: home.id, rooms: rooms)
            return core.zoneJSON(zone)
        },
        "zone/rename": HomeCommand(changes: true) { core, r in
            try r.only(["zone", "name", "home"])
            let zone = try core.structure.resolveZone(try r.string("zone"), home: try core.homeScope(r))
            try core.structure.renameZone(zone.id, to: try r.string("name"))
            return core.zoneJSON(core.structure.zone(id: zone.id)!)
        },
        "zone/remove": HomeCommand(changes: true) { core, r in
            try r.only(["zone", "home"])
            let zone = try core.structure.resolveZone(try r.string("zone"), home: try core.homeScope(r))
            try core.structure.removeZone(zone.id)
            return ["removed": .string(zone.id)]
        },
        "zone/add_room": HomeCommand(changes: true) { core, r in
            try r.only(["zone", "room", "home"])
            let zone = try core.structure.resolveZone(try r.string("zone"), home: try core.homeScope(r))
            try core.structure.addRoom(try core.structure.resolveRoom(try r.string("room"), home: zone.home).id, toZone: zone.id)
            return core.zoneJSON(core.structure.zone(id: zone.id)!)
        },
        "zone/remove_room": HomeCommand(changes: true) { core, r in
            try r.only(["zone", "room", "home"])
            let zone = try core.structure.resolveZone(try r.string("zone"), home: try core.homeScope(r))
            try core.structure.removeRoom(try core.structure.resolveRoom(try r.string("room"), home: zone.home).id, fromZone: zone.id)
            return core.zoneJSON(core.structure.zone(id: zone.id)!)
        },
        "accessory/assign_room": HomeCommand(changes: true) { core, r in
            try r.only(["accessory", "room", "home"])
            let id = try core.knownAccessory(try r.string("accessory"))
            let room = try core.structure.resolveRoom(try r.string("room"), home: try core.homeScope(r))
            if let current = core.entries[id]?.accessory, current.home != room.home {
                try core.checkAccessoryName(current.name, in: room.home, for: id)
            }
            try core.structure.assign(accessory: id, toRoom: room.id)
            return core.accessoryPlacementJSON(id)
        },
        "accessory/rename": HomeCommand(changes: true) { core, r in
            try r.only(["accessory", "name"])
            let id = try core.knownAccessory(try r.string("accessory"))
            var name: String?
            if let raw = try r.optionalString("name") {
                name = try Naming.check(raw, for: "accessory").get()
                try core.checkAccessoryName(name!, in: core.entries[id]?.accessory.home ?? core.structure.primaryHome, for: id)
            }
            core.structure.rename(accessory: id, to: name)
            return core.accessoryPlacementJSON(id)
        },
    ].merging(actionSetCommands) { a, _ in a }.merging(triggerCommands) { a, _ in a }

    /// The home named by the request's optional `home`, to look names up in.
    func homeScope(_ r: Request) throws -> String? {
        try r.optionalString("home").map { try structure.resolveHome($0).id }
    }

    /// An accessory by id, or by name where the name is one accessory's (names are unique only per home).
    func knownAccessory(_ reference: String) throws -> String {
        if entries[reference] != nil || structure.placements[reference] != nil { return reference }
        let named = order.filter { entries[$0].map { Naming.same($0.accessory.name, reference) } ?? false }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            let which = named.map { "\($0) (\(structure.home(id: entries[$0]?.accessory.home ?? "")?.name ?? "?"))" }.joined(separator: ", ")
            throw RequestError("'\(reference)' is the name of several accessories: \(which); use an id")
        }
        throw RequestError("no accessory '\(reference)'\(didYouMean(reference, order + order.compactMap { entries[$0]?.accessory.name }))")
    }

    func checkAccessoryName(_ name: String, in home: String, for id: String) throws {
        if let other = accessoryNames[home]?[name.lowercased()], other != id {
            throw StructureError.duplicateName(kind: "accessory", entries[other]?.accessory.name ?? name,
                                               scope: "in \(structure.home(id: home)?.name ?? home) (\(other))")
        }
    }

    // MARK: JSON

    func homesJSON() -> JSONValue {
        ["primary": .string(structure.primaryHome), "homes": .array(structure.homes.map(homeJSON))]
    }

    func homeJSON(_ home: Home) -> JSONValue {
        ["id": .string(home.id), "name": .string(home.name), "primary": .bool(home.id == structure.primaryHome),
         "default_room": .string(home.defaultRoom),
         "rooms": .array(structure.rooms(in: home.id).map(roomJSON)), "zones": .array(structure.zones(in: home.id).map(zoneJSON))]
    }

    func roomJSON(_ room: Room) -> JSONValue {
        let members = order.filter { entries[$0]?.accessory.room == room.id }
        return ["id": .string(room.id), "name": .string(room.name), "home": .string(room.home),
                "accessories": .array(members.map { .string($0) })]
    }

    func zoneJSON(_ zone: Zone) -> JSONValue {
        ["id": .string(zone.id), "name": .string(zone.name), "home": .string(zone.home), "rooms": .array(zone.rooms.map { .string($0) })]
    }

    func accessoryPlacementJSON(_ id: String) -> JSONValue {
        let placement = structure.placements[id]
        let room = placement.flatMap { structure.room(id: $0.room) }
        var fields: [String: JSONValue] = ["id": .string(id), "room": room.map { .string($0.id) } ?? .null, "home": room.map { .string($0.home) } ?? .null]
        fields["name"] = .string(placement?.name ?? mappingName(id) ?? id)
        return .object(fields)
    }
}
