import Foundation
import Testing

@testable import HAPBridge

@Suite("aid and iid stay with what they name")
struct IdentifierMapTests {
    @Test("an accessory keeps its aid and iids; a new one takes the next; numbers are never reused")
    func stable() {
        var map = HAPIdentifierMap()
        let bulb = map.aid(for: "bulb")
        let plug = map.aid(for: "plug")
        #expect((bulb, plug) == (2, 3))
        let on = map.iid(accessory: "bulb", key: HAPIdentifierMap.characteristicKey("lightbulb", "on"))
        let service = map.iid(accessory: "bulb", key: HAPIdentifierMap.serviceKey("lightbulb"))
        #expect(on == HAPIdentifierMap.firstFreeIID && service == on + 1)
        #expect(map.iid(accessory: "bulb", key: HAPIdentifierMap.characteristicKey("lightbulb", "on")) == on)
        #expect(map.aid(for: "bulb") == bulb)
        // The plug's iids start over: they are per accessory.
        #expect(map.iid(accessory: "plug", key: HAPIdentifierMap.serviceKey("outlet")) == HAPIdentifierMap.firstFreeIID)
        #expect(map.aid(for: "sensor") == 4)
    }

    @Test("the map survives a save and a load, and a damaged file says where it is")
    func file() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = HAPIdentifierFile(path: folder.appendingPathComponent("ids.json").path)
        #expect(try file.load() == HAPIdentifierMap())
        var map = HAPIdentifierMap()
        _ = map.iid(accessory: "bulb", key: HAPIdentifierMap.characteristicKey("lightbulb", "on"))
        map.fingerprint = "abc"
        try file.save(map)
        #expect(try file.load() == map)
        try Data("{".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect { try file.load() } throws: { "\($0)".contains(file.path) }
    }
}
