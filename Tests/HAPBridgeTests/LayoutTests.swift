import HAP
import HomeModel
import Testing

@testable import HAPBridge

@Suite("the home laid out as HAP accessories")
struct LayoutTests {
    private func bulb(name: String = "Desk lamp", withBrightness: Bool = true) -> Accessory {
        var characteristics = [Characteristic(.on, value: .bool(true))]
        if withBrightness { characteristics.append(Characteristic(.brightness, value: .int(40))) }
        return Accessory(
            id: "desk_lamp", name: name, manufacturer: "IKEA", model: "LED1545G12", firmware: "2.3.093",
            services: [Service(id: "lightbulb", type: .lightbulb, isPrimary: true, characteristics: characteristics)])
    }

    private let identity = BridgeIdentity(name: "homegate", serialNumber: "0E:12:34:56:78:9A", firmware: "0.1.0")

    @Test("aid 1 is the bridge (3E, A2); an accessory has AccessoryInformation at iids 1-7, then its own services")
    func shape() {
        var map = IdentifierMap()
        _ = map.assign(["desk_lamp"], capacity: BridgeLayout.maximumBridged, now: day(0))
        let layout = BridgeLayout.build([bulb()], map: &map, bridge: identity)
        #expect(layout.accessories.map(\.aid) == [1, 2])
        #expect(layout.accessories[0].services.map(\.type) == [HAPType(0x3E), HAPType(0xA2)])
        let lamp = layout.accessories[1]
        #expect(lamp.services.map(\.type) == [HAPType(0x3E), HAPType(0x43)])
        #expect(lamp.services[0].iid == 1 && lamp.services[0].characteristics.map(\.iid) == Array(2...7))
        #expect(lamp.services[1].primary && lamp.services[1].iid >= IdentifierMap.firstFreeIID)
        let path = CharacteristicPath(accessory: "desk_lamp", service: "lightbulb", characteristic: "brightness")
        let id = layout.ids[path]
        #expect(id?.aid == 2)
        if let id, let home = layout.home(id) { #expect(home.path == path) } else { Issue.record("no target for \(path)") }
        #expect(layout.targets[HAPCharacteristicID(aid: 2, iid: 5)] == .fixed(.string("Desk lamp")))
        #expect(layout.targets[HAPCharacteristicID(aid: 2, iid: 2)] == .identify(accessory: "desk_lamp"))
    }

    @Test("a rename keeps the fingerprint (no c# bump); a new characteristic changes it and keeps the old iids")
    func fingerprint() {
        var map = IdentifierMap()
        _ = map.assign(["desk_lamp"], capacity: BridgeLayout.maximumBridged, now: day(0))
        let small = BridgeLayout.build([bulb(withBrightness: false)], map: &map, bridge: identity)
        let renamed = BridgeLayout.build([bulb(name: "Reading lamp", withBrightness: false)], map: &map, bridge: identity)
        #expect(small.fingerprint == renamed.fingerprint)
        let grown = BridgeLayout.build([bulb()], map: &map, bridge: identity)
        #expect(grown.fingerprint != small.fingerprint)
        let on = CharacteristicPath(accessory: "desk_lamp", service: "lightbulb", characteristic: "on")
        #expect(grown.ids[on] == small.ids[on])
    }
}
