import JSON
import Mappings
import Testing

@testable import Gateway
@testable import GatewayCore

@Suite("What the gateway keeps of each Zigbee2MQTT bridge: routing, ids by address, placements, group reachability")
struct Zigbee2MQTTBridgesTests {
    static let base = "zigbee2mqtt"

    static func device(_ name: String, _ address: String, model: String = "LED1545G12") -> Zigbee2MQTTDevice {
        Zigbee2MQTTDevice(json: [
            "ieee_address": .string(address), "friendly_name": .string(name), "type": "Router",
            "definition": ["model": .string(model), "vendor": "IKEA", "exposes": []],
        ])!
    }

    static func group(_ id: Int, _ name: String, members: [String]) -> Zigbee2MQTTGroup {
        Zigbee2MQTTGroup(json: [
            "id": .integer(id), "friendly_name": .string(name),
            "members": .array(members.map { ["ieee_address": .string($0), "endpoint": 1] }),
        ])!
    }

    /// Bridges over one base topic, with `overrides` by friendly name or address.
    static func bridges(overrides: [String] = []) -> Zigbee2MQTTBridges {
        let source = Zigbee2MQTTSource(
            file: "zigbee2mqtt.yaml", baseTopic: base,
            devices: Dictionary(uniqueKeysWithValues: overrides.map { ($0, Zigbee2MQTTOverride()) }))
        return Zigbee2MQTTBridges([source])
    }

    /// Places `devices` as a rebuild does: each gets the id it had, or `id` from its friendly name.
    static func place(_ devices: [Zigbee2MQTTDevice], in bridges: inout Zigbee2MQTTBridges) -> [SkippedDevice] {
        bridges.update(base) { bridge in
            var placement = Zigbee2MQTTBridge.Placement()
            for device in devices {
                let id = bridge.accessoryID(ofDevice: device.ieeeAddress, in: placement) ?? device.friendlyName.lowercased()
                placement.assign(id, toDevice: device.ieeeAddress)
                placement.byFriendlyName[device.friendlyName] = id
                placement.placed[device.ieeeAddress] = device
            }
            return bridge.keep(placement)
        } ?? []
    }

    @Test("a device's messages go to the accessory its friendly name names; another base topic has no bridge")
    func routing() throws {
        var bridges = Self.bridges()
        let devices = [Self.device("Kitchen", "0x01"), Self.device("Hall", "0x02")]
        let change = try #require(bridges.update(Self.base) { $0.takeDevices(devices) } ?? nil)
        #expect(change.first && change.accessoriesBefore.isEmpty && change.warnings.isEmpty)
        _ = Self.place(devices, in: &bridges)
        #expect(bridges.accessory(named: "Kitchen", on: Self.base) == "kitchen")
        #expect(bridges.accessory(named: "Hall", on: Self.base) == "hall")
        #expect(bridges.accessory(named: "Attic", on: Self.base) == nil)
        #expect(bridges.accessory(named: "Kitchen", on: "upstairs") == nil)
        #expect(bridges.update("upstairs") { $0.setOnline(false) } == nil, "a base topic no mapping file names is left alone")
        #expect(bridges[Self.base]?.accessories == ["kitchen", "hall"])
        #expect(bridges.update(Self.base) { $0.takeDevices(devices) } ?? nil == nil, "the same list again is nothing new")
    }

    @Test(
        "a device renamed in Zigbee2MQTT keeps its accessory id by its IEEE address; an override keyed by the old name is warned about once"
    )
    func renameKeepsID() throws {
        var bridges = Self.bridges(overrides: ["Kitchen"])
        _ = bridges.update(Self.base) { $0.takeDevices([Self.device("Kitchen", "0x01")]) }
        _ = Self.place([Self.device("Kitchen", "0x01")], in: &bridges)

        let renamed = [Self.device("Pantry", "0x01")]
        let change = try #require(bridges.update(Self.base) { $0.takeDevices(renamed) } ?? nil)
        #expect(!change.first && change.accessoriesBefore == ["kitchen"])
        #expect(change.warnings.count == 1)
        #expect(change.warnings.first?.contains("'Kitchen' was renamed to 'Pantry'") == true)
        _ = Self.place(renamed, in: &bridges)
        #expect(bridges.accessory(named: "Pantry", on: Self.base) == "kitchen")
        #expect(bridges.accessory(named: "Kitchen", on: Self.base) == nil)

        let more = renamed + [Self.device("Hall", "0x02")]
        let next = try #require(bridges.update(Self.base) { $0.takeDevices(more) } ?? nil)
        #expect(next.warnings.isEmpty, "nor is it said again as an override that matches no device")
    }

    @Test("a device unchanged since it was placed keeps its accessory; a changed one, a second of its address, or a reload builds it again")
    func placementsKept() throws {
        var bridges = Self.bridges()
        let kitchen = Self.device("Kitchen", "0x01")
        _ = bridges.update(Self.base) { $0.takeDevices([kitchen]) }
        _ = Self.place([kitchen], in: &bridges)
        let bridge = try #require(bridges[Self.base])
        #expect(bridge.unchangedAccessory(kitchen, in: .init()) == "kitchen")
        #expect(bridge.unchangedAccessory(Self.device("Kitchen", "0x01", model: "LED2201G8"), in: .init()) == nil)
        var placement = Zigbee2MQTTBridge.Placement()
        placement.placed[kitchen.ieeeAddress] = kitchen
        #expect(bridge.unchangedAccessory(kitchen, in: placement) == nil, "the later of one address twice is built")

        bridges.reload([Zigbee2MQTTSource(file: "zigbee2mqtt.yaml", baseTopic: Self.base)])
        #expect(bridges[Self.base]?.unchangedAccessory(kitchen, in: .init()) == nil, "its overrides may have changed")
        #expect(bridges[Self.base]?.devices == [kitchen], "a reload keeps the list")
        #expect(bridges[Self.base]?.accessoryID(ofDevice: "0x01", in: .init()) == "kitchen", "and the ids")
        bridges.reload([])
        #expect(bridges[Self.base] == nil)
    }

    @Test("a group is reachable while any of its members is; a member not heard from counts as online")
    func groupReachability() throws {
        var bridges = Self.bridges()
        _ = bridges.update(Self.base) { $0.takeDevices([Self.device("Left", "0x01"), Self.device("Right", "0x02")]) }
        let lights = Self.group(3, "Lights", members: ["0x01", "0x02"])
        #expect(bridges.update(Self.base) { $0.takeGroups([lights, Self.group(4, "Empty", members: [])]) } == true)
        #expect(bridges.update(Self.base) { $0.takeGroups([lights, Self.group(4, "Empty", members: [])]) } == false)
        _ = bridges.update(Self.base) { bridge in
            var placement = Zigbee2MQTTBridge.Placement()
            placement.assign("lights", toDevice: lights.key)
            placement.byFriendlyName["Lights"] = "lights"
            return bridge.keep(placement)
        }
        func member(_ name: String, _ online: Bool) -> [Bool] {
            guard let address = bridges[Self.base]?.groupMember(named: name) else { return [] }
            return (bridges.update(Self.base) { $0.memberAvailability(address, online: online) } ?? []).map {
                #expect($0.accessory == "lights")
                return $0.online
            }
        }
        #expect(member("Left", false) == [true])
        #expect(member("Right", false) == [false])
        #expect(member("Left", true) == [true])
        #expect(member("Nobody", false) == [])
        #expect(bridges[Self.base]?.groupOnline(Self.group(4, "Empty", members: [])) == true)
    }

    @Test("devices that get no accessory are news once; a silent base topic is warned about once")
    func saidOnce() throws {
        var bridges = Self.bridges()
        let skipped = SkippedDevice(device: "Remote", reason: "no exposes")
        func keep(_ skipped: [SkippedDevice]) -> [SkippedDevice] {
            bridges.update(Self.base) { bridge in
                var placement = Zigbee2MQTTBridge.Placement()
                placement.skipped = skipped
                return bridge.keep(placement)
            } ?? []
        }
        #expect(keep([skipped]) == [skipped])
        #expect(keep([skipped]) == [])
        #expect(bridges.update(Self.base) { $0.silenceWarning(after: 10) } ?? nil != nil)
        #expect(bridges.update(Self.base) { $0.silenceWarning(after: 10) } ?? nil == nil)
        #expect(!bridges.listsKnown)
        _ = bridges.update(Self.base) { $0.takeDevices([]) }
        _ = bridges.update(Self.base) { $0.takeGroups([]) }
        #expect(bridges.listsKnown)
    }
}
