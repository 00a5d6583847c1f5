public import JSON

/// A Zigbee2MQTT bridge without a radio: what it publishes at start, how it answers `/set`, `/get`
/// and bridge requests, and what its sensors report. Pure: it returns the messages to publish.
public struct SimulatedBridge: Sendable {
    public struct Publish: Sendable, Equatable {
        public var topic: String
        public var payload: String
        public var retain: Bool

        public init(_ topic: String, _ payload: String, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    public let baseTopic: String
    /// Devices that report only when told to (`simulator/report`), never by themselves: a demo's
    /// motion sensor that does not set off its automations at random.
    public var still: Set<String> = []
    /// Devices in `bridge/devices` order, the coordinator included.
    public internal(set) var devices: [SimulatedDevice]
    /// Device definitions by model, for `simulator/add`.
    let catalogue: [String: JSONValue]
    /// `bridge/groups` entries as given (`id`, `friendly_name`, `members` with `ieee_address`).
    public internal(set) var groups: [JSONValue]
    /// What each device keeps for a scene, by `sceneKey`: the states `scene_store` saved.
    var sceneStates: [String: [String: JSONValue]] = [:]

    public init(baseTopic: String = "zigbee2mqtt", devices entries: [JSONValue], groups: [JSONValue] = []) {
        self.baseTopic = baseTopic
        self.groups = groups
        self.devices = entries.map(SimulatedDevice.init)
        var catalogue: [String: JSONValue] = [:]
        for entry in entries {
            if let model = entry["definition"]?["model"]?.stringValue { catalogue[model] = entry }
        }
        self.catalogue = catalogue
        seedScenes()
    }

    func index(of id: String) -> Int? {
        devices.firstIndex { $0.friendlyName == id || $0.ieeeAddress == id }
    }

    public func device(_ id: String) -> SimulatedDevice? { index(of: id).map { devices[$0] } }

    /// Everything Zigbee2MQTT publishes when it starts: bridge topics, availability and states.
    public func startup() -> [Publish] {
        var out = [
            Publish("\(baseTopic)/bridge/state", #"{"state":"online"}"#, retain: true), info(), devicesMessage(),
            Publish("\(baseTopic)/bridge/groups", JSONValue.array(groups).serialized(), retain: true),
        ]
        for device in devices where device.isServed {
            out.append(availability(device))
            out.append(statePublish(device))
        }
        return out
    }

    func info() -> Publish {
        let info: JSONValue = [
            "version": "2.12.1", "commit": "simulated", "permit_join": false, "restart_required": false,
            "coordinator": ["type": "simulated", "ieee_address": "0x00124b0000000000"],
            "config": ["homeassistant": ["enabled": false], "advanced": ["output": "json"]],
        ]
        return Publish("\(baseTopic)/bridge/info", info.serialized(), retain: true)
    }

    func devicesMessage() -> Publish {
        Publish("\(baseTopic)/bridge/devices", JSONValue.array(devices.map(\.entry)).serialized(), retain: true)
    }

    func availability(_ device: SimulatedDevice) -> Publish {
        Publish(
            "\(baseTopic)/\(device.friendlyName)/availability", #"{"state":"\#(device.available ? "online" : "offline")"}"#, retain: true)
    }

    func statePublish(_ device: SimulatedDevice, extra: [String: JSONValue] = [:]) -> Publish {
        var state = device.state
        for (key, value) in extra { state[key] = value }
        return Publish("\(baseTopic)/\(device.friendlyName)", JSONValue.object(state).serialized(sortedKeys: true))
    }

    /// Handles one incoming message; returns what to publish in reply (nothing for unknown topics).
    public mutating func handle(topic: String, payload: [UInt8]) -> [Publish] {
        guard topic.hasPrefix(baseTopic + "/") else { return [] }
        let rest = String(topic.dropFirst(baseTopic.count + 1))
        if rest.hasPrefix("bridge/request/") {
            return request(String(rest.dropFirst("bridge/request/".count)), payload: payload)
        }
        guard let command = DeviceCommand(rest, resolve: { index(of: $0) != nil || group($0) != nil }) else { return [] }
        if let group = group(command.device) { return handle(command, group: group, payload: payload) }
        guard let i = index(of: command.device), devices[i].isServed else { return [] }
        switch command.verb {
        case .get:
            return [statePublish(devices[i])]
        case .set:
            guard let fields = Self.setPayload(payload, attribute: command.attribute) else { return [] }
            if let out = scenes(fields, members: [i], group: nil) { return out }
            guard devices[i].apply(set: fields, endpoint: command.endpoint) else { return [] }
            return [statePublish(devices[i])]
        }
    }

    func group(_ name: String) -> JSONValue? { groups.first { $0["friendly_name"]?.stringValue == name } }

    /// A group command goes to every member, as Zigbee2MQTT's group cast does: each member reports
    /// its new state, and the group publishes the values it was set to (its optimistic state).
    mutating func handle(_ command: DeviceCommand, group: JSONValue, payload: [UInt8]) -> [Publish] {
        let name = group["friendly_name"]?.stringValue ?? ""
        let members = (group["members"]?.arrayValue ?? []).compactMap { $0["ieee_address"]?.stringValue }.compactMap(index(of:))
        var groupState: [String: JSONValue] = [:]
        var out: [Publish] = []
        switch command.verb {
        case .get:
            guard let first = members.first else { return [] }
            return [Publish("\(baseTopic)/\(name)", JSONValue.object(devices[first].state).serialized(sortedKeys: true))]
        case .set:
            guard let fields = Self.setPayload(payload, attribute: command.attribute) else { return [] }
            if let out = scenes(fields, members: members, group: (group["id"]?.intValue ?? 0, name)) { return out }
            for i in members where devices[i].isServed && devices[i].apply(set: fields) {
                out.append(statePublish(devices[i]))
                for key in fields.keys { if let value = devices[i].state[key] { groupState[key] = value } }
                if let state = devices[i].state["state"] { groupState["state"] = state }
            }
        }
        guard !groupState.isEmpty else { return out }
        return out + [Publish("\(baseTopic)/\(name)", JSONValue.object(groupState).serialized(sortedKeys: true))]
    }

    /// `/set` bodies: a JSON object, a raw value for `/set/<attr>`, or a bare `ON`/`OFF`/`TOGGLE`/... word.
    static func setPayload(_ payload: [UInt8], attribute: String?) -> [String: JSONValue]? {
        let parsed = try? JSONValue(parsing: payload)
        if let attribute {
            return [attribute: parsed ?? .string(String(decoding: payload, as: UTF8.self))]
        }
        if case .object(let fields)? = parsed { return fields }
        let word = String(decoding: payload, as: UTF8.self).lowercased()
        if ["on", "off", "toggle", "open", "close", "stop", "lock", "unlock"].contains(word) {
            return ["state": .string(word.uppercased())]
        }
        return nil
    }
}

/// `<name>/set`, `<name>/set/<attr>`, `<name>/<endpoint>/set`, `<name>/get`, ...
struct DeviceCommand {
    enum Verb { case set, get }
    var device: String
    var endpoint: String?
    var verb: Verb
    var attribute: String?

    init?(_ path: String, resolve: (String) -> Bool) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let verbIndex = parts.lastIndex(where: { $0 == "set" || $0 == "get" }), verbIndex > 0 else { return nil }
        verb = parts[verbIndex] == "set" ? .set : .get
        let tail = parts[(verbIndex + 1)...]
        guard tail.count <= 1 else { return nil }
        attribute = tail.first
        parts = Array(parts[..<verbIndex])
        let whole = parts.joined(separator: "/")
        if resolve(whole) || parts.count == 1 {
            device = whole
        } else {
            device = parts.dropLast().joined(separator: "/")
            endpoint = parts.last
        }
    }
}

extension SimulatedBridge {
    /// `count` devices cloned round-robin from the served devices in `entries`, each with its own
    /// name (`bulb_0042`) and IEEE address: a large house for load tests.
    public static func generated(count: Int, from entries: [JSONValue]) -> [JSONValue] {
        let templates = entries.filter { SimulatedDevice(entry: $0).isServed }
        guard !templates.isEmpty else { return [] }
        return (0..<count).map { n in
            let template = templates[n % templates.count]
            let base = template["friendly_name"]?.stringValue ?? "device"
            let name = "\(base)_\(String(n).leftPadded(to: 4))"
            let ieee = "0x" + String(UInt64(0x00_1788_0100_0000) + UInt64(n), radix: 16).leftPadded(to: 16)
            return template.setting("friendly_name", to: .string(name)).setting("ieee_address", to: .string(ieee))
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
