import Foundation
import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("Mapping files: the shipped examples")
struct MappingFileShippedTests {
    static let mappings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/mappings")

    @Test("every override in demo/mappings/zigbee2mqtt.yaml names a device of the fixture bridge")
    func overridesNameRealDevices() throws {
        let (set, diagnostics) = MappingSet.load(directory: Self.mappings.path)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let devices = Fixture.devices.arrayValue ?? []
        let known = Set(devices.compactMap { $0["friendly_name"]?.stringValue } + devices.compactMap { $0["ieee_address"]?.stringValue })
        let source = try #require(set.zigbee2mqtt.first)
        #expect(!source.devices.isEmpty)
        for key in source.devices.keys.sorted() {
            #expect(known.contains(key), "'\(key)' is not a device in Fixtures/devices.json")
        }
    }

    @Test("every explicit accessory in the examples has a topic for each characteristic it declares")
    func explicitAccessoriesAreBound() throws {
        let (set, _) = MappingSet.load(directory: Self.mappings.path)
        #expect(set.accessories.count >= 3)
        for mapping in set.accessories {
            #expect(!mapping.bindings.isEmpty, "\(mapping.accessory.id)")
            for binding in mapping.bindings {
                #expect(mapping.accessory[binding.service]?[binding.characteristic] != nil)
                #expect(binding.state != nil || binding.set != nil, "\(mapping.accessory.id)/\(binding.characteristic)")
            }
        }
    }

    @Test("mappings/README.md's key tables mention every key the loader accepts")
    func readmeDocumentsEveryKey() throws {
        let readme = try String(
            contentsOf: Self.mappings.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("mappings/README.md"), encoding: .utf8)
        let keys =
            [
                "source", "base_topic", "name", "devices", "room", "exclude", "exclude_properties", "include_properties", "invert_position",
                "hide_members", "service",
                "accessories", "templates", "instances", "vars", "template", "id", "manufacturer", "model", "category",
                "availability", "online", "offline", "path", "services", "type", "primary", "characteristics",
                "state", "set", "get", "payload", "retain", "value", "min", "max", "step", "topic",
            ]
            + FileReader.transformKeys
        for key in keys {
            #expect(readme.contains("`\(key)`") || readme.contains("\(key):"), "README.md does not document '\(key)'")
        }
    }
}
