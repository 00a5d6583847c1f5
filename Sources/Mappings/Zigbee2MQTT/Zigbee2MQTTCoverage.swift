public import HomeModel

/// How much of a set of Zigbee2MQTT devices the mapping shows: per device fully, partly or not at all,
/// and per expose kind how many devices have it and how many of those show it. For
/// `homegate validate --devices … --coverage` and the corpus test. Given a bridge (the Matter
/// bridge's mapping), also how many of those reach it, and which characteristics it leaves out.
public struct Zigbee2MQTTCoverage: Sendable {
    public struct Row: Sendable, Hashable {
        /// The expose's kind: a specific type (`light`, `cover`) or a generic expose's name (`temperature`).
        public var expose: String
        public var devices = 0
        public var shown = 0
        /// Devices where the kind reaches the bridge: a characteristic of it the bridge carries.
        public var bridged = 0
        /// Why it is not shown, by how often.
        public var reasons: [String: Int] = [:]
    }

    /// Devices whose every expose is shown, but for settings and diagnostics.
    public var fully: [String] = []
    /// Devices with an accessory that leaves out something that is neither a setting nor a diagnostic.
    public var partly: [String] = []
    /// Devices with no accessory, with why.
    public var none: [(device: String, reason: String)] = []
    public var rows: [String: Row] = [:]
    /// The features of specific exposes (`light brightness`, `cover position`): shown when a
    /// characteristic takes them, bridged when the bridge carries one; no reasons.
    public var features: [String: Row] = [:]
    /// The bridge the `bridged` counts are for, if any.
    public var bridge: String?
    /// Kinds on devices, in all and those neither a setting nor a diagnostic (`category` nil).
    public var total = Share()
    public var primary = Share()
    /// Services of the accessories the bridge has no device type for, by service type: how many.
    public var unbridgedServices: [String: Int] = [:]
    /// Characteristics of bridged services the bridge leaves out, by `service_type characteristic`: how many services.
    public var leftOut: [String: Int] = [:]

    public struct Share: Sendable, Hashable {
        public var exposes = 0
        public var shown = 0
        public var bridged = 0
    }

    /// A bridge to count for: its name, and which characteristics of a service it carries (nil:
    /// the service is not bridged).
    public struct Bridge: Sendable {
        public var name: String
        public var carried: @Sendable (Service) -> Set<String>?

        public init(name: String, carried: @escaping @Sendable (Service) -> Set<String>?) {
            self.name = name
            self.carried = carried
        }
    }

    public init(
        _ devices: [Zigbee2MQTTDevice], override: (Zigbee2MQTTDevice) -> Zigbee2MQTTOverride = { _ in .init() }, bridge: Bridge? = nil
    ) {
        self.bridge = bridge?.name
        var carriedByShape: [Service: Set<String>?] = [:]
        func carried(_ service: Service) -> Set<String>? {
            if let known = carriedByShape[service] { return known }
            let found = bridge?.carried(service)
            carriedByShape[service] = .some(found)
            return found
        }
        for device in devices {
            let mapping: Zigbee2MQTTMapping
            switch Zigbee2MQTTMapping.build(device, override: override(device)) {
            case .failure(let skipped):
                none.append((device.friendlyName, skipped.reason))
                let exposes = device.exposes.filter { $0.property != "linkquality" }
                let primaryKinds = Set(exposes.filter { $0.category == nil }.map(Self.kind))
                for kind in Set(exposes.map(Self.kind)) {
                    rows[kind, default: Row(expose: kind)].devices += 1
                    total.exposes += 1
                    if primaryKinds.contains(kind) { primary.exposes += 1 }
                }
                continue
            case .success(let built):
                mapping = built
            }
            let unmapped = Dictionary(mapping.unmapped.map { ($0.property, $0.reason) }, uniquingKeysWith: { a, _ in a })
            var primaryMissing = false
            // A device with two of a kind (one per endpoint) counts once: shown when any of them is.
            var shownByKind: [String: Bool] = [:]
            var bridgedByKind: [String: Bool] = [:]
            var primaryKinds = Set<String>()
            var shownByFeature: [String: Bool] = [:]
            var bridgedByFeature: [String: Bool] = [:]
            /// Whether a characteristic takes the expose's state, and whether the bridge carries one that does.
            func reach(_ expose: Expose) -> (shown: Bool, bridged: Bool) {
                let targets = expose.stateKeys.flatMap { mapping.characteristics(forKey: $0) }
                let bridged = targets.contains { target in
                    guard let service = mapping.accessory.services.first(where: { $0.id == target.service }) else { return false }
                    return carried(service)?.contains(target.characteristic) ?? false
                }
                return (!targets.isEmpty, bridged)
            }
            for expose in device.exposes where expose.property != "linkquality" {
                let kind = Self.kind(expose)
                // A specific expose left out is reported under its state's key (a child lock's `child_lock`).
                let reason =
                    unmapped[expose.property ?? expose.name ?? expose.type]
                    ?? expose.features.lazy.compactMap { $0.property.flatMap { unmapped[$0] } }.first
                if reason != nil, expose.category == nil { primaryMissing = true }
                shownByKind[kind] = (shownByKind[kind] ?? false) || reason == nil
                if let reason { rows[kind, default: Row(expose: kind)].reasons[reason, default: 0] += 1 }
                if expose.category == nil { primaryKinds.insert(kind) }
                bridgedByKind[kind] = (bridgedByKind[kind] ?? false) || reach(expose).bridged
                for feature in expose.features {
                    let name = "\(kind) \(feature.name ?? feature.property ?? feature.type)"
                    let (shown, bridged) = reach(feature)
                    shownByFeature[name] = (shownByFeature[name] ?? false) || shown
                    bridgedByFeature[name] = (bridgedByFeature[name] ?? false) || bridged
                }
            }
            for (name, shown) in shownByFeature {
                features[name, default: Row(expose: name)].devices += 1
                if shown { features[name]!.shown += 1 }
                if bridgedByFeature[name] == true { features[name]!.bridged += 1 }
            }
            for (kind, shown) in shownByKind {
                rows[kind, default: Row(expose: kind)].devices += 1
                if shown { rows[kind]!.shown += 1 }
                let bridged = bridgedByKind[kind] ?? false
                if bridged { rows[kind]!.bridged += 1 }
                for counted in primaryKinds.contains(kind) ? [\Self.total, \Self.primary] : [\Self.total] {
                    self[keyPath: counted].exposes += 1
                    if shown { self[keyPath: counted].shown += 1 }
                    if bridged { self[keyPath: counted].bridged += 1 }
                }
            }
            if bridge != nil {
                for service in mapping.accessory.services where service.type != .service_label {
                    guard let kept = carried(service) else {
                        unbridgedServices[service.type.name, default: 0] += 1
                        continue
                    }
                    for characteristic in service.characteristics where !kept.contains(characteristic.name) {
                        leftOut["\(service.type.name) \(characteristic.name)", default: 0] += 1
                    }
                }
            }
            if primaryMissing { partly.append(device.friendlyName) } else { fully.append(device.friendlyName) }
        }
    }

    static func kind(_ expose: Expose) -> String {
        expose.features.isEmpty ? (expose.name ?? expose.property ?? expose.type) : expose.type
    }

    /// The report as text: a summary line, the devices without an accessory, and a Markdown table
    /// of expose kinds, most common first.
    public var table: String {
        if let bridge { return table(bridge: bridge) }
        let total = fully.count + partly.count + none.count
        var lines = ["\(total) devices: \(fully.count) fully shown, \(partly.count) partly, \(none.count) not at all", ""]
        for (device, reason) in none { lines.append("- \(device): \(reason)") }
        if !none.isEmpty { lines.append("") }
        lines += ["| expose | devices | shown | not shown, and why |", "| --- | --- | --- | --- |"]
        for row in rows.values.sorted(by: { ($0.devices, $1.expose) > ($1.devices, $0.expose) }) {
            let why = row.reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) (\($0.value))" }.joined(
                separator: "; ")
            lines.append("| `\(row.expose)` | \(row.devices) | \(row.shown) | \(why) |")
        }
        return lines.joined(separator: "\n")
    }
}
