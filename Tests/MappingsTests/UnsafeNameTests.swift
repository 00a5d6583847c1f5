import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("A friendly name never reaches a topic that names another device")
struct UnsafeNameTests {
    /// The fixture's bulb under another name and address.
    static func bulb(named name: String, ieee: String = "0x00158d0001a2b3c4") throws -> Zigbee2MQTTDevice {
        var entry = try #require(Fixture.devices.arrayValue?.first { $0["friendly_name"] == "bulb" }?.objectValue)
        entry["friendly_name"] = .string(name)
        entry["ieee_address"] = .string(ieee)
        return try #require(Zigbee2MQTTDevice(json: .object(entry)))
    }

    @Test(
        "names with NUL, wildcards, empty levels or control characters, and empty names, get no accessory, with the reason",
        arguments: [
            ("lamp\u{0}evil", "NUL"), ("", "empty"), ("hall/+/lamp", "wildcards"), ("lamp#", "wildcards"), ("/lamp", "empty topic level"),
            ("lamp/", "empty topic level"), ("a//b", "empty topic level"), ("lamp\u{7}", "control characters"),
            ("bad\u{FFFD}utf8", "UTF-8"),
        ])
    func refused(name: String, reason: String) throws {
        let device = try Self.bulb(named: name)
        let skipped = try #require(Zigbee2MQTTMapping.build(device).failure)
        #expect(skipped.reason.contains(reason) && skipped.reason.contains("rename it in Zigbee2MQTT"), "\(skipped)")
        #expect(!skipped.description.contains("\u{0}"))
    }

    @Test("names Zigbee2MQTT allows and that are safe still map, slashes included")
    func allowed() throws {
        for name in ["Living Room Lamp", "kitchen/ceiling", "Küche"] {
            #expect(Zigbee2MQTTMapping.build(try Self.bulb(named: name)).failure == nil, "\(name)")
        }
    }

    @Test(
        "ids from names: transliterated to Latin letters, and from the IEEE address where nothing usable is left",
        arguments: [
            ("Küche", "kuche"), ("Wohnzimmer Büro", "wohnzimmer_buro"), ("Øresund Ærø", "oresund_aero"), ("Straße", "strasse"),
            ("客厅", "ke_ting"), ("Living Room Light!", "living_room_light_"), ("???", "0x00158d0001a2b3c4"), ("🛋️", "0x00158d0001a2b3c4"),
        ])
    func ids(name: String, id: String) throws {
        let mapping = try Zigbee2MQTTMapping.build(try Self.bulb(named: name)).get()
        #expect(mapping.accessory.id == id)
        #expect(mapping.accessory.name == name)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
