public import JSON

/// A device from `<base>/bridge/devices`.
public struct Zigbee2MQTTDevice: Sendable, Hashable {
    public var ieeeAddress: String
    public var friendlyName: String
    public var type: String
    public var model: String?
    public var vendor: String?
    public var description: String?
    public var supported: Bool
    public var interviewCompleted: Bool
    /// `PENDING`, `IN_PROGRESS`, `SUCCESSFUL` or `FAILED` (2.3+); derived from the 1.x flags before that.
    public var interviewState: String
    public var disabled: Bool
    public var powerSource: String?
    public var softwareBuildID: String?
    public var exposes: [Expose]
    public var hasDefinition: Bool
    /// Scenes the device keeps itself (stored with `scene_store`), from all its endpoints.
    public var scenes: [Zigbee2MQTTScene]

    public init?(json: JSONValue) {
        guard let ieee = json["ieee_address"]?.stringValue, let name = json["friendly_name"]?.stringValue else { return nil }
        ieeeAddress = ieee
        friendlyName = name
        type = json["type"]?.stringValue ?? "Unknown"
        let definition = json["definition"]
        hasDefinition = definition != nil && definition != .null
        model = definition?["model"]?.stringValue ?? json["model_id"]?.stringValue
        vendor = definition?["vendor"]?.stringValue ?? json["manufacturer"]?.stringValue
        description = definition?["description"]?.stringValue
        // A generated definition is Zigbee2MQTT guessing from clusters: not a device it knows.
        supported = (json["supported"]?.boolValue ?? hasDefinition) && definition?["source"]?.stringValue != "generated"
        // 2.x has interview_state; 1.x only interview_completed and interviewing.
        if let state = json["interview_state"]?.stringValue {
            interviewState = state
        } else if json["interviewing"]?.boolValue == true {
            interviewState = "IN_PROGRESS"
        } else {
            interviewState = json["interview_completed"]?.boolValue ?? hasDefinition ? "SUCCESSFUL" : "PENDING"
        }
        interviewCompleted = interviewState == "SUCCESSFUL"
        disabled = json["disabled"]?.boolValue ?? false
        powerSource = json["power_source"]?.stringValue
        softwareBuildID = json["software_build_id"]?.stringValue
        exposes = definition?["exposes"]?.arrayValue?.map(Expose.init(json:)) ?? []
        scenes = Zigbee2MQTTScene.list(ofDevice: json)
    }

    /// Why this device gets no accessory, or nil when it gets one.
    public var skipReason: String? {
        if let nameProblem { return "\(nameProblem); rename it in Zigbee2MQTT" }
        if type == "Coordinator" { return "the coordinator" }
        if !hasDefinition { return interviewState == "FAILED" ? "its interview failed" : "still being interviewed" }
        // A failed re-interview keeps the definition from before, and the device keeps working.
        if !interviewCompleted, interviewState != "FAILED" { return "still being interviewed" }
        if !supported { return "not supported by Zigbee2MQTT (model \(model ?? "unknown"))" }
        if disabled { return "disabled in Zigbee2MQTT" }
        return nil
    }

    /// Why the friendly name cannot be part of a topic, or nil: `<base>/<name>/set` must reach this
    /// device and no other, and `<base>/<name>` must be a topic its state can arrive on.
    public var nameProblem: String? {
        let name = friendlyName
        if name.isEmpty { return "its friendly name is empty" }
        if name.unicodeScalars.contains("\u{0}") { return "its friendly name contains a NUL character, which would cut its topics short" }
        if name.contains("+") || name.contains("#") { return "its friendly name contains '+' or '#', which are MQTT wildcards" }
        if name.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "its friendly name has an empty topic level (a '/' at the start or end, or two in a row)"
        }
        if name.unicodeScalars.contains("\u{FFFD}") { return "its friendly name is not valid UTF-8" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "its friendly name contains control characters"
        }
        return nil
    }

    /// The friendly name as a log line can show it: quoted and escaped when it is not safe.
    public var loggableName: String { nameProblem == nil ? friendlyName : String(reflecting: friendlyName) }

    /// Parses a whole `bridge/devices` payload; entries without an address or name are dropped.
    public static func list(from payload: JSONValue) -> [Zigbee2MQTTDevice] {
        payload.arrayValue?.compactMap(Zigbee2MQTTDevice.init(json:)) ?? []
    }
}

extension Zigbee2MQTTDevice {
    /// A `bridge/devices` payload parsed device by device, so its size in memory stays near the
    /// size of one device; nil when it is not a JSON array. Devices of one model with the same
    /// exposes share one copy of them: twenty bulbs of a kind keep one list, not twenty.
    public static func list(parsing payload: some Collection<UInt8>) -> [Zigbee2MQTTDevice]? {
        var reader = ListReader()
        return payload.withContiguousStorageIfAvailable { reader.read($0) }
            ?? Array(payload).withUnsafeBufferPointer { reader.read($0) }
    }

    /// Takes the exposes of the first device of its model read before, when they are the same.
    mutating func shareExposes(_ byModel: inout [String: [Expose]]) {
        guard let model, !exposes.isEmpty else { return }
        if let known = byModel[model] {
            if known == exposes { exposes = known }
        } else {
            byModel[model] = exposes
        }
    }

    /// Reads one bridge's `bridge/devices` each time it is published: a device whose bytes are the
    /// same as in the list read last is that device again, not parsed again. Zigbee2MQTT publishes
    /// the whole list when one device joins, leaves or is renamed, and parsing it all costs many
    /// times what finding and hashing each device's bytes does (docs/performance.md).
    public struct ListReader: Sendable {
        private struct Key: Hashable {
            var bytes: Int
            var hash: Int
        }

        /// The devices of the list read last, by their bytes; nil for an entry that is no device.
        private var known: [Key: Zigbee2MQTTDevice?] = [:]
        private var keys: [Key] = []
        private var devices: [Zigbee2MQTTDevice] = []

        public init() {}

        /// The devices in `payload`, each entry parsed on its own (entries without an address or a
        /// name are left out); nil when it is not a JSON array of JSON values. The same list again is
        /// the same array (its storage shared), found by hash.
        public mutating func read(_ payload: UnsafeBufferPointer<UInt8>) -> [Zigbee2MQTTDevice]? {
            guard let ranges = JSONValue.elementRanges(ofArray: payload) else {
                forget()
                return nil
            }
            let keys = ranges.map { range in
                var hasher = Hasher()
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: payload[range])))
                return Key(bytes: range.count, hash: hasher.finalize())
            }
            if keys == self.keys { return devices }
            // The devices read before first, then the new ones, which share the exposes of one of
            // their model read before: what was not read again keeps its storage.
            var next: [Key: Zigbee2MQTTDevice?] = [:]
            next.reserveCapacity(keys.count)
            var exposesByModel: [String: [Expose]] = [:]
            var fresh: [(key: Key, range: Range<Int>)] = []
            for (key, range) in zip(keys, ranges) where next[key] == nil {
                if let seen = known[key] {
                    next[key] = seen
                    if let seen, let model = seen.model, !seen.exposes.isEmpty, exposesByModel[model] == nil {
                        exposesByModel[model] = seen.exposes
                    }
                } else {
                    fresh.append((key, range))
                    next[key] = .some(nil)
                }
            }
            for (key, range) in fresh {
                guard let json = try? JSONValue(parsingElement: UnsafeBufferPointer(rebasing: payload[range])) else {
                    forget()
                    return nil
                }
                var device = Zigbee2MQTTDevice(json: json)
                device?.shareExposes(&exposesByModel)
                next[key] = .some(device)
            }
            let devices = keys.compactMap { next[$0] ?? nil }
            known = next
            self.keys = keys
            self.devices = devices
            return devices
        }

        private mutating func forget() {
            known = [:]
            keys = []
            devices = []
        }
    }
}

/// A scene stored in a device or a group, as `bridge/devices` (per endpoint) and `bridge/groups` list it.
public struct Zigbee2MQTTScene: Sendable, Hashable {
    public var id: Int
    public var name: String
    /// The endpoint that holds it when it is not the device's first: its name (Zigbee2MQTT 2.6+) or number.
    public var endpoint: String?

    public init(id: Int, name: String, endpoint: String? = nil) {
        self.id = id
        self.name = name
        self.endpoint = endpoint
    }

    /// `[{"id": 1, "name": "Chill"}]`; entries without a whole id are dropped, a missing name is `Scene <id>`.
    static func list(_ json: JSONValue?, endpoint: String? = nil) -> [Zigbee2MQTTScene] {
        (json?.arrayValue ?? []).compactMap { entry in
            guard let id = entry["id"]?.intValue, (0...255).contains(id) else { return nil }
            let name = entry["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "Scene \(id)"
            return Zigbee2MQTTScene(id: id, name: name, endpoint: endpoint)
        }
    }

    /// A device's scenes: per endpoint since Zigbee2MQTT 1.34, on the device itself before.
    /// Scenes of the first endpoint are recalled on the device's own topic.
    static func list(ofDevice json: JSONValue) -> [Zigbee2MQTTScene] {
        var scenes = list(json["scenes"])
        guard let endpoints = json["endpoints"]?.objectValue else { return scenes }
        let keys = endpoints.keys.sorted { (Int($0) ?? .max, $0) < (Int($1) ?? .max, $1) }
        for key in keys {
            let endpoint = endpoints[key]!
            let name = key == keys.first ? nil : endpoint["name"]?.stringValue ?? key
            for scene in list(endpoint["scenes"], endpoint: name) where !scenes.contains(scene) { scenes.append(scene) }
        }
        return scenes
    }
}
