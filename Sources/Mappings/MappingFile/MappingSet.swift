public import HomeModel
import JSON

/// Everything the mapping files say, validated.
public struct MappingSet: Sendable {
    public var zigbee2mqtt: [Zigbee2MQTTSource] = []
    public var accessories: [MQTTAccessoryMapping] = []
    /// The files read, for the summary line.
    public var files: [String] = []

    public init() {}
}

/// A `source: zigbee2mqtt` file: one bridge and the overrides for its devices.
public struct Zigbee2MQTTSource: Sendable, Hashable {
    public var file: String
    public var baseTopic: String
    /// What to call the bridge where several are in one house (`Upstairs`); nil: its base topic.
    public var name: String?
    /// Overrides by friendly name or IEEE address.
    public var devices: [String: Zigbee2MQTTOverride]

    public init(file: String, baseTopic: String = "zigbee2mqtt", devices: [String: Zigbee2MQTTOverride] = [:], name: String? = nil) {
        self.file = file
        self.baseTopic = baseTopic
        self.devices = devices
        self.name = name
    }

    /// The override for a device: by IEEE address first, then by friendly name.
    public func override(for device: Zigbee2MQTTDevice) -> Zigbee2MQTTOverride {
        devices[device.ieeeAddress] ?? devices[device.friendlyName] ?? Zigbee2MQTTOverride()
    }
}

/// An accessory defined by hand in a `source: mqtt` file, with its topics.
public struct MQTTAccessoryMapping: Sendable, Hashable {
    public var file: String
    public var accessory: Accessory
    public var availability: Availability?
    public var bindings: [MQTTBinding]

    public struct Availability: Sendable, Hashable {
        public var topic: String
        public var path: JSONPath?
        public var online: String
        public var offline: String
    }
}

/// The topics and rules behind one characteristic of an explicit accessory.
public struct MQTTBinding: Sendable, Hashable {
    public var service: String
    public var characteristic: String
    public var state: StateSpec?
    public var set: SetSpec?
    public var get: GetSpec?

    public struct StateSpec: Sendable, Hashable {
        public var topic: String
        public var path: JSONPath?
        public var transforms: Transforms
    }

    public struct SetSpec: Sendable, Hashable {
        public var topic: String
        /// `{"state":"{{value}}"}`; nil sends the value itself.
        public var template: String?
        public var transforms: Transforms
        public var retain: Bool
    }

    public struct GetSpec: Sendable, Hashable {
        public var topic: String
        public var payload: String
    }
}
