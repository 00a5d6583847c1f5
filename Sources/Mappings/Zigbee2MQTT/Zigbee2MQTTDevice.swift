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
    public var disabled: Bool
    public var powerSource: String?
    public var softwareBuildID: String?
    public var exposes: [Expose]
    public var hasDefinition: Bool

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
        supported = json["supported"]?.boolValue ?? hasDefinition
        // 2.x has interview_state; 1.x only interview_completed.
        if let state = json["interview_state"]?.stringValue {
            interviewCompleted = state == "SUCCESSFUL"
        } else {
            interviewCompleted = json["interview_completed"]?.boolValue ?? hasDefinition
        }
        disabled = json["disabled"]?.boolValue ?? false
        powerSource = json["power_source"]?.stringValue
        softwareBuildID = json["software_build_id"]?.stringValue
        exposes = definition?["exposes"]?.arrayValue?.map(Expose.init(json:)) ?? []
    }

    /// Why this device gets no accessory, or nil when it gets one.
    public var skipReason: String? {
        if type == "Coordinator" { return "the coordinator" }
        if !interviewCompleted || !hasDefinition { return "still being interviewed" }
        if !supported { return "not supported by Zigbee2MQTT (model \(model ?? "unknown"))" }
        if disabled { return "disabled in Zigbee2MQTT" }
        return nil
    }

    /// Parses a whole `bridge/devices` payload; entries without an address or name are dropped.
    public static func list(from payload: JSONValue) -> [Zigbee2MQTTDevice] {
        payload.arrayValue?.compactMap(Zigbee2MQTTDevice.init(json:)) ?? []
    }
}
