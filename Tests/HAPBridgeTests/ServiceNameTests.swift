import HAP
import HomeModel
import Testing

@testable import HAPBridge

@Suite("Names per tile: each service's Name and ConfiguredName")
struct ServiceNameTests {
    private let identity = BridgeIdentity(name: "homegate", serialNumber: "0E:12:34:56:78:9A", firmware: "0.1.0")

    private func relay(names: [String?] = [nil, nil]) -> Accessory {
        Accessory(
            id: "kitchen_relay", name: "Kitchen relay",
            services: names.enumerated().map { index, name in
                Service(
                    id: "switch_l\(index + 1)", type: .switch, name: name, isPrimary: index == 0,
                    characteristics: [Characteristic(.on, value: .bool(false))])
            })
    }

    private func layout(_ accessory: Accessory, map: inout IdentifierMap) -> BridgeLayout {
        _ = map.assign([accessory.id], capacity: BridgeLayout.maximumBridged, now: day(0))
        return BridgeLayout.build([accessory], map: &map, bridge: identity)
    }

    /// Each service's (Name, ConfiguredName) values, AccessoryInformation left out.
    private func names(_ layout: BridgeLayout) -> [[HAPValue?]] {
        layout.accessories[1].services.dropFirst().map { service in
            service.characteristics.filter { $0.type == ServiceNames.name || $0.type == ServiceNames.configuredName }.map(\.value)
        }
    }

    @Test("two services of one type without names of their own are numbered after the accessory, so the tiles differ")
    func numbered() {
        var map = IdentifierMap()
        let laid = layout(relay(), map: &map)
        #expect(names(laid) == [[.string("Kitchen relay 1"), .string("Kitchen relay 1")], [.string("Kitchen relay 2"), .string("Kitchen relay 2")]])
        // AccessoryInformation keeps its Name alone, and no ConfiguredName.
        #expect(!laid.accessories[1].services[0].characteristics.contains { $0.type == ServiceNames.configuredName })
    }

    @Test("a service's own name is used, as HomeKit takes names; a single service of its type gets the accessory's")
    func ownNames() {
        var map = IdentifierMap()
        #expect(names(layout(relay(names: ["Relay l1", "Left_lamp/1"]), map: &map))[1] == [.string("Left lamp 1"), .string("Left lamp 1")])
        var other = IdentifierMap()
        #expect(names(layout(relay(names: [nil]), map: &other)) == [[.string("Kitchen relay"), .string("Kitchen relay")]])
    }

    @Test("Name is read only, ConfiguredName read, write and events; both answer for their service")
    func permissionsAndTargets() throws {
        var map = IdentifierMap()
        let laid = layout(relay(), map: &map)
        let service = laid.accessories[1].services[2]
        let name = try #require(service.characteristics.first { $0.type == ServiceNames.name })
        let configured = try #require(service.characteristics.first { $0.type == ServiceNames.configuredName })
        #expect(name.perms == [.pairedRead])
        #expect(configured.perms == [.pairedRead, .pairedWrite, .events])
        #expect(laid.targets[HAPCharacteristicID(aid: 2, iid: name.iid)] == .serviceName(accessory: "kitchen_relay", service: "switch_l2", configured: false))
        #expect(laid.targets[HAPCharacteristicID(aid: 2, iid: configured.iid)] == .serviceName(accessory: "kitchen_relay", service: "switch_l2", configured: true))
        #expect(laid.configuredNames[ServiceReference(accessory: "kitchen_relay", service: "switch_l2")] == HAPCharacteristicID(aid: 2, iid: configured.iid))
    }

    @Test("the names' iids are new keys: a map from before them keeps every iid it had, and a rename keeps the fingerprint")
    func stableIIDs() {
        // The map as a bridge without names left it: the services and their On at 8–11.
        var map = IdentifierMap()
        _ = map.assign(["kitchen_relay"], capacity: BridgeLayout.maximumBridged, now: day(0))
        for key in ["s:switch_l1", "c:switch_l1/on", "s:switch_l2", "c:switch_l2/on"] { _ = map.iid(accessory: "kitchen_relay", key: key) }
        let before = map.accessories["kitchen_relay"]!.iids
        let laid = BridgeLayout.build([relay()], map: &map, bridge: identity)
        let after = map.accessories["kitchen_relay"]!.iids
        #expect(before.allSatisfy { after[$0.key] == $0.value })
        #expect(after["n:switch_l1"] == 12 && after["cn:switch_l1"] == 13 && after["n:switch_l2"] == 14 && after["cn:switch_l2"] == 15)
        let renamed = BridgeLayout.build([relay(names: ["Left", "Right"])], map: &map, bridge: identity)
        #expect(renamed.fingerprint == laid.fingerprint)
        #expect(map.accessories["kitchen_relay"]!.iids == after)
    }

    @Test("a remote's service label and a hidden service get no name, nor a service whose mapping gives it a Name already")
    func notNamed() {
        let remote = Accessory(
            id: "remote", name: "Remote",
            services: [
                Service(id: "service_label", type: .service_label, characteristics: [Characteristic(.service_label_namespace, value: .int(1))]),
                Service(id: "battery", type: .battery_service, isHidden: true, characteristics: [Characteristic(.battery_level)]),
                Service(id: "switch", type: .switch, characteristics: [Characteristic(.on), Characteristic(.name, value: .string("Mine"))]),
            ])
        #expect(ServiceNames.names(of: remote).isEmpty)
    }
}
