import JSON
import Mappings

/// A bridge's device and group lists as the database keeps them: in Zigbee2MQTT's own form, holding
/// what homegate reads of each device, so that read back through the same parser they are the
/// same lists (`Zigbee2MQTTInventoryTests` pins that).
enum Zigbee2MQTTInventory {
    static func stored(base: String, devices: [Zigbee2MQTTDevice], groups: [Zigbee2MQTTGroup]?) -> StoredInventory {
        StoredInventory(baseTopic: base, devicesText: { text(devices, json) }, groupsText: { groups.map { text($0, json) } })
    }

    /// The bytes of `.array(items.map(json)).serializedBytes()`, an entry at a time: the whole list as
    /// one `JSONValue` would be several times its text. Written in pieces, then put together in one
    /// buffer of the exact size: a growing array would hold up to three times the text as it grows.
    static func text<Item>(_ items: [Item], _ json: (Item) -> JSONValue) -> [UInt8] {
        let pieceSize = 1 << 20
        var pieces: [[UInt8]] = []
        var piece: [UInt8] = []
        piece.append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if piece.count >= pieceSize - pieceSize / 8 {
                pieces.append(piece)
                piece = []
                piece.reserveCapacity(pieceSize)
            }
            if index > 0 { piece.append(UInt8(ascii: ",")) }
            json(item).write(to: &piece)
        }
        piece.append(UInt8(ascii: "]"))
        guard !pieces.isEmpty else { return piece }
        pieces.append(piece)
        var out: [UInt8] = []
        out.reserveCapacity(pieces.reduce(0) { $0 + $1.count })
        for piece in pieces { out.append(contentsOf: piece) }
        return out
    }

    /// The lists read back; entries that are not a device or group are left out, as in a live list.
    /// The devices are read as a list from the broker is (a device at a time, the exposes of a
    /// model shared); nil when the text is not a list of JSON values.
    static func lists(_ stored: StoredInventory) -> (devices: [Zigbee2MQTTDevice], groups: [Zigbee2MQTTGroup]?)? {
        var reader = Zigbee2MQTTDevice.ListReader()
        guard let devices = stored.devicesText.withUnsafeBufferPointer({ reader.read($0) }) else { return nil }
        let groups = stored.groups.map { ($0.arrayValue ?? []).compactMap(Zigbee2MQTTGroup.init(json:)) }
        return (devices, groups)
    }

    static func json(_ device: Zigbee2MQTTDevice) -> JSONValue {
        var fields: [String: JSONValue] = [
            "ieee_address": .string(device.ieeeAddress), "friendly_name": .string(device.friendlyName), "type": .string(device.type),
            "supported": .bool(device.supported), "interview_state": .string(device.interviewState), "disabled": .bool(device.disabled),
        ]
        if device.hasDefinition {
            var definition: [String: JSONValue] = ["exposes": .array(device.exposes.map(json))]
            if let model = device.model { definition["model"] = .string(model) }
            if let vendor = device.vendor { definition["vendor"] = .string(vendor) }
            if let description = device.description { definition["description"] = .string(description) }
            fields["definition"] = .object(definition)
        } else {
            if let model = device.model { fields["model_id"] = .string(model) }
            if let vendor = device.vendor { fields["manufacturer"] = .string(vendor) }
        }
        if let power = device.powerSource { fields["power_source"] = .string(power) }
        if let build = device.softwareBuildID { fields["software_build_id"] = .string(build) }
        // Scenes of the first endpoint on the device itself; the others under endpoints named in
        // the order they come (a first endpoint "-1" with none, so that none of them is the first).
        fields["scenes"] = .array(device.scenes.filter { $0.endpoint == nil }.map(json))
        var endpoints: [String: JSONValue] = [:]
        var order: [String] = []
        for scene in device.scenes { if let endpoint = scene.endpoint, !order.contains(endpoint) { order.append(endpoint) } }
        if !order.isEmpty { endpoints["-1"] = .object([:]) }
        for (position, name) in order.enumerated() {
            let scenes = device.scenes.filter { $0.endpoint == name }.map(json)
            endpoints["e\(String(position + 100_000))"] = .object(["name": .string(name), "scenes": .array(scenes)])
        }
        if !endpoints.isEmpty { fields["endpoints"] = .object(endpoints) }
        return .object(fields)
    }

    static func json(_ expose: Expose) -> JSONValue {
        var fields: [String: JSONValue] = ["type": .string(expose.type), "access": .integer(expose.access)]
        if let name = expose.name { fields["name"] = .string(name) }
        if let property = expose.property { fields["property"] = .string(property) }
        if let endpoint = expose.endpoint { fields["endpoint"] = .string(endpoint) }
        if let on = expose.valueOn { fields["value_on"] = on }
        if let off = expose.valueOff { fields["value_off"] = off }
        if let min = expose.valueMin { fields["value_min"] = .double(min) }
        if let max = expose.valueMax { fields["value_max"] = .double(max) }
        if let step = expose.valueStep { fields["value_step"] = .double(step) }
        if !expose.values.isEmpty { fields["values"] = .array(expose.values.map { .string($0) }) }
        if let unit = expose.unit { fields["unit"] = .string(unit) }
        if let category = expose.category { fields["category"] = .string(category) }
        if !expose.features.isEmpty { fields["features"] = .array(expose.features.map(json)) }
        return .object(fields)
    }

    static func json(_ group: Zigbee2MQTTGroup) -> JSONValue {
        let members: [JSONValue] = group.members.map { member in
            var fields: [String: JSONValue] = ["ieee_address": .string(member.ieeeAddress)]
            if let endpoint = member.endpoint { fields["endpoint"] = .integer(endpoint) }
            return .object(fields)
        }
        return [
            "id": .integer(group.id), "friendly_name": .string(group.friendlyName), "members": .array(members),
            "scenes": .array(group.scenes.map(json)),
        ]
    }

    static func json(_ scene: Zigbee2MQTTScene) -> JSONValue { ["id": .integer(scene.id), "name": .string(scene.name)] }
}
