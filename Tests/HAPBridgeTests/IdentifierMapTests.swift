import Foundation
import Testing

@testable import HAPBridge

@Suite("aid and iid stay with what they name")
struct IdentifierMapTests {
    @Test("an accessory keeps its aid and iids; a new one takes the next; numbers are never reused")
    func stable() {
        var map = IdentifierMap()
        #expect(map.assign(["bulb", "plug"], capacity: 149, now: day(0)) == [["bulb", "plug"]])
        #expect((map.accessories["bulb"]?.aid, map.accessories["plug"]?.aid) == (2, 3))
        let on = map.iid(accessory: "bulb", key: IdentifierMap.characteristicKey("lightbulb", "on"))
        let service = map.iid(accessory: "bulb", key: IdentifierMap.serviceKey("lightbulb"))
        #expect(on == IdentifierMap.firstFreeIID && service == on + 1)
        #expect(map.iid(accessory: "bulb", key: IdentifierMap.characteristicKey("lightbulb", "on")) == on)
        // The plug's iids start over: they are per accessory.
        #expect(map.iid(accessory: "plug", key: IdentifierMap.serviceKey("outlet")) == IdentifierMap.firstFreeIID)
        // The bulb leaves, a sensor joins, the bulb comes back: each keeps or gets its own number.
        _ = map.assign(["plug", "sensor"], capacity: 149, now: day(0))
        _ = map.assign(["sensor", "bulb", "plug"], capacity: 149, now: day(0))
        #expect(map.accessories.mapValues(\.aid) == ["bulb": 2, "plug": 3, "sensor": 4])
    }

    @Test("past the capacity a second bridge starts; nobody moves when others join")
    func bridges() {
        var map = IdentifierMap()
        let first = map.assign(["a", "b", "c"], capacity: 2, now: day(0))
        #expect(first == [["a", "b"], ["c"]])
        #expect(map.bridgeCount == 2)
        #expect(map.accessories["c"].map { ($0.bridge, $0.aid) } ?? (0, 0) == (1, 2))
        // "d" joins: both bridges are full, so a third starts; nobody moves.
        let second = map.assign(["a", "b", "c", "d"], capacity: 2, now: day(0))
        #expect(second == [["a", "b"], ["c", "d"]])
        let third = map.assign(["a", "b", "c", "d", "e"], capacity: 2, now: day(0))
        #expect(third == [["a", "b"], ["c", "d"], ["e"]])
        #expect(map.bridgeCount == 3)
    }

    @Test("one that returns to a bridge filled while it was away keeps its bridge and aid")
    func returnToFullBridge() {
        var map = IdentifierMap()
        _ = map.assign(["a", "b", "c"], capacity: 2, now: day(0))
        // "a" leaves: its place is kept, so "d" goes to the second bridge, not into "a"'s place.
        let away = map.assign(["b", "c", "d"], capacity: 2, now: day(1))
        #expect(away == [["b"], ["c", "d"]])
        #expect(map.accessories["a"]?.awaySince == day(1))
        // "e" joins while "a" is away: a third bridge rather than "a"'s place.
        #expect(map.assign(["b", "c", "d", "e"], capacity: 2, now: day(2)) == [["b"], ["c", "d"], ["e"]])
        // "a" comes back after 29 days: same bridge, same aid, numbers intact.
        let back = map.assign(["a", "b", "c", "d", "e"], capacity: 2, now: day(30))
        #expect(back == [["b", "a"], ["c", "d"], ["e"]])
        #expect(map.accessories["a"].map { ($0.bridge, $0.aid) } ?? (9, 9) == (0, 2))
        #expect(map.accessories["a"]?.awaySince == nil && map.accessories["a"]?.present == true)
    }

    @Test("a place is given up 30 days after its accessory left; returning later it goes where there is room")
    func reservationExpires() {
        var map = IdentifierMap()
        _ = map.assign(["a", "b", "c", "d"], capacity: 2, now: day(0))
        _ = map.assign(["b", "c", "d"], capacity: 2, now: day(1))
        // Still held just before the 30 days are up...
        #expect(map.assign(["b", "c", "d", "e"], capacity: 2, now: day(30.9)) == [["b"], ["c", "d"], ["e"]])
        // ...and free once they are: "f" takes it.
        #expect(map.assign(["b", "c", "d", "e", "f"], capacity: 2, now: day(31)) == [["b", "f"], ["c", "d"], ["e"]])
        // "a" returns to its full bridge: the first with room, with a new aid there.
        let back = map.assign(["a", "b", "c", "d", "e", "f"], capacity: 2, now: day(40))
        #expect(back == [["b", "f"], ["c", "d"], ["e", "a"]])
        #expect(map.accessories["a"].map { ($0.bridge, $0.aid) } ?? (9, 9) == (2, 3))
        // Away longer than 30 days from a bridge that keeps room: it returns to its place.
        _ = map.assign(["b", "c", "d", "e", "f"], capacity: 2, now: day(41))
        #expect(map.assign(["a", "b", "c", "d", "e", "f"], capacity: 2, now: day(100)) == [["b", "f"], ["c", "d"], ["e", "a"]])
        #expect(map.accessories["a"].map { ($0.bridge, $0.aid) } ?? (9, 9) == (2, 3))
    }

    @Test("one that stayed is never pushed off by a reservation, even from an overfull stored map")
    func stayersStay() throws {
        // Stored before reservations: "a" away, and "x" took the place.
        let json = """
            {"accessories":{"a":{"aid":2,"bridge":0,"iids":{},"nextIID":8,"present":false},
            "b":{"aid":3,"bridge":0,"iids":{},"nextIID":8,"present":true},
            "x":{"aid":4,"bridge":0,"iids":{},"nextIID":8,"present":true}},"fingerprints":{},"nextAIDs":[5]}
            """
        var map = try JSONDecoder().decode(IdentifierMap.self, from: Data(json.utf8))
        #expect(map.assign(["b", "x"], capacity: 2, now: day(0)) == [["b", "x"]])
        #expect(map.accessories["a"]?.awaySince == day(0), "the 30 days count from the first start after the upgrade")
        // "a" returns: no room left, so it moves; "b" and "x" stay.
        #expect(map.assign(["a", "b", "x"], capacity: 2, now: day(1)) == [["b", "x"], ["a"]])
    }

    @Test("a map stored before reservations loads, with its numbers")
    func formerShape() async throws {
        let storage = MemoryStorage()
        try await storage.save(
            BridgeStateKeys.identifiers,
            #"{"accessories":{"bulb":{"aid":2,"bridge":0,"iids":{"c:lightbulb\/on":8},"nextIID":9,"present":true}},"fingerprints":{"0":"abc"},"nextAIDs":[3]}"#
        )
        var map = try await IdentifierStorage(storage: storage).load()
        #expect(map.accessories["bulb"]?.aid == 2 && map.accessories["bulb"]?.awaySince == nil)
        #expect(map.iid(accessory: "bulb", key: IdentifierMap.characteristicKey("lightbulb", "on")) == 8)
        #expect(map.assign(["bulb", "plug"], capacity: 149, now: day(0)) == [["bulb", "plug"]])
        #expect(map.accessories["plug"]?.aid == 3)
    }

    @Test("the map survives a save and a load, and a damaged one says which key it is")
    func storage() async throws {
        let storage = MemoryStorage()
        let identifiers = IdentifierStorage(storage: storage)
        #expect(try await identifiers.load() == IdentifierMap())
        var map = IdentifierMap()
        _ = map.assign(["bulb"], capacity: 149, now: day(0))
        _ = map.iid(accessory: "bulb", key: IdentifierMap.characteristicKey("lightbulb", "on"))
        _ = map.assign(["plug"], capacity: 149, now: day(3))
        map.fingerprints["0"] = "abc"
        try await identifiers.save(map)
        #expect(try await identifiers.load() == map)
        try await storage.save(BridgeStateKeys.identifiers, "{")
        await #expect { try await identifiers.load() } throws: { "\($0)".contains(BridgeStateKeys.identifiers) }
    }
}

/// Midnight of day `n` of a made-up month: the map's clock in these tests.
func day(_ n: Double) -> Date { Date(timeIntervalSince1970: 1_790_000_000 + n * 86_400) }
