public import JSON

/// A group from `<base>/bridge/groups`: devices Zigbee2MQTT controls as one, on `<base>/<group>/set`,
/// with the group's state published on `<base>/<group>`.
public struct Zigbee2MQTTGroup: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public var ieeeAddress: String
        public var endpoint: Int?
    }

    public var id: Int
    public var friendlyName: String
    public var members: [Member]
    /// Scenes stored for the group in its members, recalled on `<base>/<group>/set`.
    public var scenes: [Zigbee2MQTTScene]

    public init?(json: JSONValue) {
        guard let id = json["id"]?.intValue, let name = json["friendly_name"]?.stringValue else { return nil }
        self.id = id
        friendlyName = name
        members =
            json["members"]?.arrayValue?.compactMap { member in
                member["ieee_address"]?.stringValue.map { Member(ieeeAddress: $0, endpoint: member["endpoint"]?.intValue) }
            } ?? []
        scenes = Zigbee2MQTTScene.list(json["scenes"])
    }

    /// Parses a whole `bridge/groups` payload; nil when it is not a JSON array.
    public static func list(parsing payload: [UInt8]) -> [Zigbee2MQTTGroup]? {
        guard let json = try? JSONValue(parsing: payload), let entries = json.arrayValue else { return nil }
        return entries.compactMap(Zigbee2MQTTGroup.init(json:))
    }

    /// The key a group's accessory id is remembered by, as a device's is by its IEEE address.
    public var key: String { "group:\(id)" }

    /// The exposes every member has, as the group's own: the specific kinds HomeKit can control (light,
    /// switch, cover, lock, climate, fan), each with the features all members share. Sensors and
    /// settings stay with the devices. Exposes of one endpoint of a multi-endpoint member are not
    /// shared: a group's state uses the plain property names.
    public static let controlTypes: Set<String> = ["light", "switch", "cover", "lock", "climate", "fan"]

    public func sharedExposes(_ devices: [Zigbee2MQTTDevice]) -> [Expose] {
        let members = members.compactMap { member in devices.first { $0.ieeeAddress == member.ieeeAddress } }
        guard let first = members.first else { return [] }
        var shared: [Expose] = []
        for expose in first.exposes where Self.controlTypes.contains(expose.type) && expose.endpoint == nil {
            var common = expose
            for other in members.dropFirst() {
                guard let match = other.exposes.first(where: { $0.type == expose.type && $0.endpoint == nil }) else {
                    common.features = []
                    break
                }
                common.features = common.features.filter { feature in
                    match.features.contains { $0.name == feature.name && $0.property == feature.property }
                }
            }
            if !common.features.isEmpty, !shared.contains(where: { $0.type == common.type }) { shared.append(common) }
        }
        return shared
    }

    /// The group as a device of its own, for the mapping to build an accessory from.
    public func asDevice(_ devices: [Zigbee2MQTTDevice]) -> Zigbee2MQTTDevice? {
        let exposes = sharedExposes(devices)
        guard !exposes.isEmpty else { return nil }
        let json: JSONValue = [
            "ieee_address": .string(key), "friendly_name": .string(friendlyName), "type": "Group", "supported": true,
            "interview_state": "SUCCESSFUL",
            "definition": ["model": "Group", "vendor": "Zigbee2MQTT", "description": .string("Zigbee2MQTT group \(id)"), "exposes": []],
        ]
        guard var device = Zigbee2MQTTDevice(json: json) else { return nil }
        device.exposes = exposes
        return device
    }
}
