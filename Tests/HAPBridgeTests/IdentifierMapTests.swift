import Foundation
import Testing

@testable import HAPBridge

@Suite("aid and iid stay with what they name")
struct IdentifierMapTests {
    @Test("an accessory keeps its aid and iids; a new one takes the next; numbers are never reused")
    func stable() {
        var map = HAPIdentifierMap()
        #expect(map.assign(["bulb", "plug"], capacity: 149) == [["bulb", "plug"]])
        #expect((map.accessories["bulb"]?.aid, map.accessories["plug"]?.aid) == (2, 3))
        let on = map.iid(accessory: "bulb", key: HAPIdentifierMap.characteristicKey("lightbulb", "on"))
        let service = map.iid(accessory: "bulb", key: HAPIdentifierMap.serviceKey("lightbulb"))
        #expect(on == HAPIdentifierMap.firstFreeIID && service == on + 1)
        #expect(map.iid(accessory: "bulb", key: HAPIdentifierMap.characteristicKey("lightbulb", "on")) == on)
        // The plug's iids start over: they are per accessory.
        #expect(map.iid(accessory: "plug", key: HAPIdentifierMap.serviceKey("outlet")) == HAPIdentifierMap.firstFreeIID)
        // The bulb leaves, a sensor joins, the bulb comes back: each keeps or gets its own number.
        _ = map.assign(["plug", "sensor"], capacity: 149)
        _ = map.assign(["sensor", "bulb", "plug"], capacity: 149)
        #expect(map.accessories.mapValues(\.aid) == ["bulb": 2, "plug": 3, "sensor": 4])
    }

    @Test("past the capacity a second bridge starts; nobody moves when others join")
    func bridges() {
        var map = HAPIdentifierMap()
        let first = map.assign(["a", "b", "c"], capacity: 2)
        #expect(first == [["a", "b"], ["c"]])
        #expect(map.bridgeCount == 2)
        #expect(map.accessories["c"].map { ($0.bridge, $0.aid) } ?? (0, 0) == (1, 2))
        // "a" leaves: "d" takes its room on the first bridge; "c" stays where it is.
        let second = map.assign(["b", "c", "d"], capacity: 2)
        #expect(second == [["b", "d"], ["c"]])
        #expect(map.accessories["d"].map { ($0.bridge, $0.aid) } ?? (0, 0) == (0, 4))
        // "a" returns to a full first bridge: it goes where there is room, with a new aid there.
        let third = map.assign(["a", "b", "c", "d"], capacity: 2)
        #expect(third == [["b", "d"], ["c", "a"]])
        #expect(map.accessories["a"].map { ($0.bridge, $0.aid) } ?? (0, 0) == (1, 3))
    }

    @Test("the map survives a save and a load, and a damaged one says which key it is")
    func storage() async throws {
        let storage = MemoryStorage()
        let identifiers = HAPIdentifierStorage(storage: storage)
        #expect(try await identifiers.load() == HAPIdentifierMap())
        var map = HAPIdentifierMap()
        _ = map.assign(["bulb"], capacity: 149)
        _ = map.iid(accessory: "bulb", key: HAPIdentifierMap.characteristicKey("lightbulb", "on"))
        map.fingerprints["0"] = "abc"
        try await identifiers.save(map)
        #expect(try await identifiers.load() == map)
        try await storage.save(HAPStateKeys.identifiers, "{")
        await #expect { try await identifiers.load() } throws: { "\($0)".contains(HAPStateKeys.identifiers) }
    }
}
