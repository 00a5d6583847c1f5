import HomeModel
import Testing

@Suite("Homes, rooms and zones: naming rules, default rooms, what removal does")
struct StructureTests {
    var home = HomeStructure.initial()

    func refusal(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    @Test("a new database has one primary home with a room for the entire home")
    func initial() {
        #expect(home.homes.map(\.name) == ["Home"] && home.primaryHome == "home")
        #expect(home.rooms.map(\.name) == ["Default Room"] && home.primary.defaultRoom == "default_room")
    }

    @Test(
        "names are trimmed; empty, control characters, over 64 characters and case-insensitive duplicates are refused, each saying which rule"
    )
    mutating func naming() throws {
        let kitchen = try home.addRoom(named: "  Kitchen \n", in: "home")
        #expect(kitchen.name == "Kitchen" && kitchen.id == "kitchen")
        #expect(
            refusal { try home.addRoom(named: "kitchen", in: "home") }
                == "there is already a room named 'Kitchen' in Home (names are unique, ignoring case)")
        #expect(refusal { try home.addRoom(named: "   ", in: "home") } == "room name '   ': a name cannot be empty")
        #expect(
            refusal { try home.addRoom(named: "Bad\u{7}Room", in: "home") }
                == "room name 'Bad\u{7}Room': a name cannot contain control characters")
        #expect(
            refusal { try home.addRoom(named: String(repeating: "x", count: 65), in: "home") }.hasSuffix(
                "a name can be at most 64 characters, this one has 65"))
        #expect(
            refusal { try home.addHome(named: "HOME") }
                == "there is already a home named 'Home' on this gateway (names are unique, ignoring case)")
        // Unique per home: a second home may have its own Kitchen, with an id of its own.
        let cabin = try home.addHome(named: "Cabin")
        let cabinKitchen = try home.addRoom(named: "Kitchen", in: cabin.id)
        #expect(cabinKitchen.id == "kitchen_2" && cabin.defaultRoom == "default_room_2")
        try home.renameRoom("kitchen", to: "KITCHEN")
        #expect(home.room(id: "kitchen")?.name == "KITCHEN", "a room may change the case of its own name")
        #expect(refusal { try home.renameHome("cabin", to: "home") }.hasPrefix("there is already a home named 'Home'"))
    }

    @Test("removing a room moves its accessories to the default room and takes it out of every zone; the default room stays")
    mutating func removeRoom() throws {
        let office = try home.addRoom(named: "Office", in: "home")
        _ = try home.addZone(named: "Upstairs", in: "home", rooms: [office.id])
        home.place(accessory: "lamp", requestedRoom: "Office")
        _ = home.drainChanges()
        try home.removeRoom(office.id)
        #expect(home.placements["lamp"]?.room == "default_room")
        #expect(home.zone(id: "upstairs")?.rooms == [])
        #expect(
            home.drainChanges() == [
                StructureChange(.accessory, "lamp", .room), StructureChange(.zone, "upstairs", .rooms),
                StructureChange(.room, "office", .removed),
            ])
        #expect(refusal { try home.removeRoom("default_room") } == "'Default Room' is the room for the entire home and cannot be removed")
    }

    @Test("homes: the last and the primary one cannot be removed; removing another moves its accessories to the primary home")
    mutating func removeHome() throws {
        #expect(refusal { try home.removeHome("home") } == "the last home cannot be removed")
        let cabin = try home.addHome(named: "Cabin")
        let porch = try home.addRoom(named: "Porch", in: cabin.id)
        home.place(accessory: "lamp", requestedRoom: nil)
        try home.assign(accessory: "lamp", toRoom: porch.id)
        #expect(home.home(ofAccessory: "lamp") == "cabin")
        _ = home.drainChanges()
        try home.setPrimary("cabin")
        #expect(
            home.drainChanges() == [StructureChange(.home, "home", .primary), StructureChange(.home, "cabin", .primary)],
            "both homes are announced")
        #expect(
            refusal { try home.removeHome("cabin") } == "'Cabin' is the primary home and cannot be removed; make another home primary first"
        )
        try home.setPrimary("home")
        try home.removeHome("cabin")
        #expect(home.placements["lamp"]?.room == "default_room" && home.rooms.count == 1)
    }

    @Test("zones hold rooms of their own home only, each once")
    mutating func zones() throws {
        let cabin = try home.addHome(named: "Cabin")
        let porch = try home.addRoom(named: "Porch", in: cabin.id)
        #expect(
            refusal { try home.addZone(named: "Outside", in: "home", rooms: [porch.id]) }
                == "room 'Porch' is in home 'Cabin', zone 'Outside' is in 'Home'")
        let zone = try home.addZone(named: "Outside", in: cabin.id, rooms: [porch.id])
        #expect(refusal { try home.addRoom(porch.id, toZone: zone.id) } == "room 'Porch' is already in zone 'Outside'")
        try home.removeRoom(porch.id, fromZone: zone.id)
        #expect(refusal { try home.removeRoom(porch.id, fromZone: zone.id) } == "room 'Porch' is not in zone 'Outside'")
        #expect(refusal { _ = try home.resolveZone("outsde", home: "cabin") } == "no zone 'outsde' (did you mean 'outside'?)")
    }

    @Test("placement: the mapping's room is created; a mapping edit moves an unpinned accessory; the user's choices stick")
    mutating func placement() throws {
        let new = home.place(accessory: "lamp", requestedRoom: "Office")
        #expect(new)
        #expect(home.room(id: home.placements["lamp"]!.room)?.name == "Office")
        let again = home.place(accessory: "lamp", requestedRoom: "Office")
        #expect(!again, "known, nothing changes")
        home.place(accessory: "lamp", requestedRoom: "Study")
        #expect(home.placements["lamp"]?.room == "study", "the mapping was edited: it moves")
        // The user renames the room: the mapping still says Study, but no second Study appears.
        try home.renameRoom("study", to: "Library")
        home.place(accessory: "lamp", requestedRoom: "Study")
        #expect(home.placements["lamp"]?.room == "study" && home.rooms.filter { $0.name == "Study" }.isEmpty)
        // Pinned by the user: a mapping edit no longer moves it.
        try home.assign(accessory: "lamp", toRoom: "default_room")
        home.place(accessory: "lamp", requestedRoom: "Garage")
        #expect(home.placements["lamp"]?.room == "default_room" && home.placements["lamp"]?.pinned == true)
        // No room named: the default room.
        home.place(accessory: "sensor", requestedRoom: nil)
        #expect(home.placements["sensor"]?.room == "default_room")
    }
}

@Suite("Did you mean", .timeLimit(.minutes(1)))
struct DidYouMeanTests {
    @Test("a near name is suggested; a huge one is not compared at all, so it cannot hold the gateway up")
    func suggestions() {
        #expect(didYouMean("kitchn", ["kitchen", "hallway"]) == " (did you mean 'kitchen'?)")
        // Compared, this took minutes; the time limit fails it if it ever is again.
        let names = (0..<10_000).map { "action_set_\($0)" }
        #expect(didYouMean(String(repeating: "x", count: 60_000), names) == "")
    }
}
