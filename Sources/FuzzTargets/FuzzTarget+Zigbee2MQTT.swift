import Foundation
import Gateway
import HomeModel
import JSON
import Mappings

extension FuzzTarget {
    /// The accessories of the `bridge/devices` fixture the mapping tests use.
    static let fixtureMappings: [Zigbee2MQTTMapping] = Zigbee2MQTTMapping.build(fixtureDevices).mappings

    static let fixtureDevices = Zigbee2MQTTDevice.list(parsing: fixtureDevicesPayload) ?? []

    static let fixtureDevicesPayload: [UInt8] = {
        let path = repository.appendingPathComponent("Tests/MappingsTests/Fixtures/devices.json").path
        guard let data = FileManager.default.contents(atPath: path) else { fatalError("the fuzz targets need \(path)") }
        return Array(data)
    }()

    /// A reader that has read the fixture list.
    static let fixtureReader: Zigbee2MQTTDevice.ListReader = {
        var reader = Zigbee2MQTTDevice.ListReader()
        _ = fixtureDevicesPayload.withUnsafeBufferPointer { reader.read($0) }
        return reader
    }()

    /// One Zigbee2MQTT bridge on `zigbee2mqtt`, as a mapping file gives it.
    static let bridgeSources: DeviceSources = {
        var mappings = MappingSet()
        _ = mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n")
        return DeviceSources(mappings: mappings)
    }()

    /// The checkout these sources are in: the fuzz targets run from it, never from an install.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Decoded for every fixture device, and each value stored into its accessory as the gateway does.
    static func zigbee2mqttState(_ bytes: [UInt8]) -> String? {
        guard let payload = try? JSONValue(parsing: bytes) else { return nil }
        for mapping in fixtureMappings {
            var accessory = mapping.accessory
            for update in mapping.decode(payload).updates {
                _ = try? accessory.update(
                    service: update.service, characteristic: update.characteristic, value: update.value, source: .device)
            }
        }
        return nil
    }

    /// Read as the gateway reads `<base>/bridge/devices`: from raw bytes, as they lie in libmosquitto's
    /// buffer, by a bridge's reader that read a list before (`DeviceSources.inventory(lent:_:reader:)`,
    /// here after the fixture list), and every device built. The devices must be those of the list
    /// parsed as one document: a device known by its bytes is that device again, and nothing else is
    /// taken from before.
    static func zigbee2mqttDevices(_ bytes: [UInt8]) -> String? {
        var reader = fixtureReader
        let input = bytes.withUnsafeBytes { bridgeSources.inventory(lent: "zigbee2mqtt/bridge/devices", $0, reader: &reader) }
        let document = try? JSONValue(parsing: bytes)
        let whole = document?.arrayValue == nil ? nil : Zigbee2MQTTDevice.list(from: document!)
        guard case .devices(_, let devices)? = input else {
            return whole == nil
                ? nil : "a list that parses as one document (\(whole!.count) devices) is unreadable to a reader that read another before"
        }
        guard devices == whole else {
            return "read after the fixture: \(devices.count) devices, parsed as one document: \(whole?.count ?? -1)"
        }
        _ = Zigbee2MQTTMapping.build(devices)
        return nil
    }

    /// `zigbee2mqtt/<bytes>` read as a device message: whatever the topic, a report is never read
    /// from our own `/set` or `/get` coming back (a part after the device's first that is `set` or
    /// `get`, as splitting the topic says), and the device it names is the rest of the topic.
    static func topic(_ bytes: [UInt8]) -> String? {
        let rest = String(decoding: bytes, as: UTF8.self)
        for input in bridgeSources.read("zigbee2mqtt/" + rest, Array(#"{"state":"ON"}"#.utf8)) {
            guard case .report(_, let device, _, _) = input else { continue }
            if rest.split(separator: "/").dropFirst().contains(where: { $0 == "set" || $0 == "get" }) {
                return "zigbee2mqtt/\(rest) is our own request, read as a report of \(device)"
            }
            if device != rest { return "zigbee2mqtt/\(rest) read as a report of \(device)" }
        }
        return nil
    }

    /// Parsed as the gateway does on `<base>/bridge/groups`, and each group built over the fixture's devices.
    static func zigbee2mqttGroups(_ bytes: [UInt8]) -> String? {
        guard let groups = Zigbee2MQTTGroup.list(parsing: bytes) else { return nil }
        for group in groups {
            guard let device = group.asDevice(fixtureDevices) else { continue }
            _ = Zigbee2MQTTMapping.build(device)
        }
        return nil
    }
}
