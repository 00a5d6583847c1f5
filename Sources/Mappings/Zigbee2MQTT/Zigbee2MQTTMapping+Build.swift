import HomeModel

extension Zigbee2MQTTMapping {
    /// The accessory a HomeKit user would expect for `device`, or why there is none.
    /// `id` keeps an accessory's id when the device was renamed in Zigbee2MQTT.
    public static func build(
        _ device: Zigbee2MQTTDevice, override: Zigbee2MQTTOverride = .init(), id: String? = nil,
        bridge: String = "zigbee2mqtt"
    ) -> Result<Zigbee2MQTTMapping, SkippedDevice> {
        if let reason = device.skipReason {
            return .failure(SkippedDevice(device: device.loggableName, reason: reason, needsAttention: device.nameProblem != nil))
        }
        if override.exclude { return .failure(SkippedDevice(device: device.friendlyName, reason: "excluded by the mapping file")) }
        let accessory = Accessory(
            id: id ?? Accessory.topicSafeID(device.friendlyName, fallback: device.ieeeAddress), name: override.name ?? device.friendlyName,
            manufacturer: device.vendor, model: device.model, firmware: device.softwareBuildID,
            bridge: bridge, requestedRoom: override.room, services: [])
        var builder = Builder(
            mapping: Zigbee2MQTTMapping(accessory: accessory, ieeeAddress: device.ieeeAddress, friendlyName: device.friendlyName),
            device: device, override: override)
        builder.addAll()
        guard !builder.mapping.accessory.services.isEmpty else {
            return .failure(SkippedDevice(device: device.friendlyName, reason: "no exposes that map to HomeKit services"))
        }
        return .success(builder.finish())
    }

    /// Every device of a `bridge/devices` payload: the accessories, and the devices left out with why.
    public static func build(
        _ devices: [Zigbee2MQTTDevice], bridge: String = "zigbee2mqtt",
        override: (Zigbee2MQTTDevice) -> Zigbee2MQTTOverride = { _ in .init() }
    )
        -> (mappings: [Zigbee2MQTTMapping], skipped: [SkippedDevice])
    {
        var mappings: [Zigbee2MQTTMapping] = []
        var skipped: [SkippedDevice] = []
        for device in devices {
            switch build(device, override: override(device), bridge: bridge) {
            case .success(let mapping): mappings.append(mapping)
            case .failure(let reason): skipped.append(reason)
            }
        }
        return (mappings, skipped)
    }
}

/// A device that produces no accessory, and why: for the log at info level.
public struct SkippedDevice: Error, Sendable, Hashable, CustomStringConvertible {
    public var device: String
    public var reason: String
    /// Something the user must fix (a name that cannot be a topic), logged as a warning, not as news.
    public var needsAttention = false
    /// A Zigbee2MQTT group rather than a device.
    public var isGroup = false
    public var description: String { "\(device): \(reason)" }

    public init(device: String, reason: String, needsAttention: Bool = false, isGroup: Bool = false) {
        self.device = device
        self.reason = reason
        self.needsAttention = needsAttention
        self.isGroup = isGroup
    }
}

/// Walks the exposes once, adding services and the rules behind them.
struct Builder {
    typealias Rule = Zigbee2MQTTMapping.Reader.Rule

    var mapping: Zigbee2MQTTMapping
    let device: Zigbee2MQTTDevice
    let override: Zigbee2MQTTOverride
    /// The device's exposes less the properties the mapping file excludes.
    let exposes: [Expose]
    var used: Set<String> = []
    var category: Accessory.Category?

    init(mapping: Zigbee2MQTTMapping, device: Zigbee2MQTTDevice, override: Zigbee2MQTTOverride) {
        self.mapping = mapping
        self.device = device
        self.override = override
        exposes = device.exposes.compactMap { $0.excluding(override.excludeProperties) }
    }

    /// The top-level generic expose with this state key.
    func generic(_ property: String) -> Expose? { exposes.first { $0.property == property && $0.features.isEmpty } }

    /// Every top-level generic expose called `name`, one per endpoint (`temperature_l1`, `temperature_l2`).
    func generics(_ name: String, type: String) -> [Expose] {
        exposes.filter { $0.name == name && $0.type == type && $0.features.isEmpty && $0.property != nil }
    }

    mutating func addAll() {
        for expose in exposes {
            switch expose.type {
            case "light": addLight(expose)
            case "switch": addSwitch(expose)
            case "cover": addCover(expose)
            case "lock" where expose.feature("state")?.property?.hasPrefix("child_lock") == true:
                // A thermostat's child lock: a setting of its buttons, not a door to unlock from the Home app.
                break
            case "lock": addLock(expose)
            case "climate": addClimate(expose)
            case "fan": addFan(expose)
            default: break
            }
        }
        addSensors()
        addBattery()
        addActions()
        addSettings()
        for expose in exposes where expose.type == "lock" {
            if let state = expose.feature("state"), let key = state.property, key.hasPrefix("child_lock"), !used.contains(key) {
                mapping.unmapped.append(
                    UnmappedExpose(
                        property: key,
                        reason:
                            "a child lock: a setting of the device's own buttons, not a door lock; shown in settings unless settings: none")
                )
            }
        }
        for expose in exposes {
            if expose.features.isEmpty {
                if let property = expose.property, !used.contains(property), property != "linkquality" {
                    mapping.unmapped.append(UnmappedExpose(property: property, reason: Self.whyUnmapped(expose)))
                }
            } else if !["light", "switch", "cover", "lock", "climate", "fan"].contains(expose.type) {
                let name = expose.property ?? expose.name ?? expose.type
                mapping.unmapped.append(
                    UnmappedExpose(property: name, reason: "a '\(expose.type)' expose, which homegate does not map yet"))
            }
        }
    }

    /// Why a generic expose has no characteristic, in words for the log and `homegate validate --devices`.
    static func whyUnmapped(_ expose: Expose) -> String {
        switch (expose.name ?? expose.property ?? "", expose.category) {
        case ("device_temperature", _): "the device's own temperature; include_properties: [device_temperature] shows it"
        case ("voltage", _), ("current", _), ("power", _), ("energy", _), ("produced_energy", _), ("power_factor", _):
            "HomeKit has no electrical measurement characteristics"
        case (_, "config") where expose.isSettable && ["binary", "numeric", "enum"].contains(expose.type):
            "a device setting (config); settings: all shows it"
        case (_, "config"): "a device setting (config)"
        case (_, "diagnostic"): "a diagnostic reading"
        case ("action", _): "an action without any press HomeKit knows"
        default:
            expose.isSettable
                ? "\(expose.type == "enum" ? "an" : "a") \(expose.type) setting with no HomeKit characteristic"
                : "no HomeKit characteristic for it"
        }
    }

    mutating func finish() -> Zigbee2MQTTMapping {
        // Nothing but settings: not a sensor to the Home app.
        mapping.accessory.category = category ?? (mapping.accessory.services.allSatisfy { $0.type == .settings } ? .other : .sensor)
        if let first = mapping.accessory.services.indices.first, !mapping.accessory.services.contains(where: \.isPrimary) {
            mapping.accessory.services[first].isPrimary = true
        }
        var gettable: [String] = []
        for expose in exposes.flatMap({ $0.features.isEmpty ? [$0] : $0.features }) where expose.isGettable {
            if let property = expose.property, used.contains(property), !gettable.contains(property) { gettable.append(property) }
        }
        mapping.gettableKeys = gettable
        return mapping
    }

    /// A service id unique in the accessory: `lightbulb`, `switch_l1`, `temperature_sensor_2`.
    func serviceID(_ type: ServiceType, endpoint: String?) -> String {
        let base = endpoint.map { "\(type.name)_\(Accessory.topicSafeID($0))" } ?? type.name
        return Naming.unique(id: base) { id in mapping.accessory.services.contains { $0.id == id } }
    }

    mutating func addService(
        _ type: ServiceType, endpoint: String? = nil, primary: Bool = false, _ characteristics: [Characteristic]
    ) -> String {
        let id = serviceID(type, endpoint: endpoint)
        mapping.accessory.services.append(
            Service(
                id: id, type: type, name: endpoint.map { "\(mapping.accessory.name) \($0)" },
                isPrimary: primary, characteristics: characteristics))
        return id
    }

    /// The accessory's category: the first kind the device has wins, but a switch or outlet yields
    /// to a thermostat, cover, lock, fan or light found after it (a thermostat's window-detection
    /// switch does not make it a switch in the Home app).
    mutating func claim(_ kind: Accessory.Category) {
        if category == nil || category == .switch || category == .outlet { category = kind }
    }

    mutating func use(_ expose: Expose?) {
        if let property = expose?.property { used.insert(property) }
    }
}
