/// How much of a set of Zigbee2MQTT devices the mapping shows: per device fully, partly or not at all,
/// and per expose kind how many devices have it and how many of those show it. For
/// `homegate validate --devices … --coverage` and the corpus test.
public struct Zigbee2MQTTCoverage: Sendable {
    public struct Row: Sendable, Hashable {
        /// The expose's kind: a specific type (`light`, `cover`) or a generic expose's name (`temperature`).
        public var expose: String
        public var devices = 0
        public var shown = 0
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

    public init(_ devices: [Zigbee2MQTTDevice], override: (Zigbee2MQTTDevice) -> Zigbee2MQTTOverride = { _ in .init() }) {
        for device in devices {
            let mapping: Zigbee2MQTTMapping
            switch Zigbee2MQTTMapping.build(device, override: override(device)) {
            case .failure(let skipped):
                none.append((device.friendlyName, skipped.reason))
                for kind in Set(device.exposes.filter { $0.property != "linkquality" }.map(Self.kind)) {
                    rows[kind, default: Row(expose: kind)].devices += 1
                }
                continue
            case .success(let built):
                mapping = built
            }
            let unmapped = Dictionary(mapping.unmapped.map { ($0.property, $0.reason) }, uniquingKeysWith: { a, _ in a })
            var primaryMissing = false
            // A device with two of a kind (one per endpoint) counts once: shown when any of them is.
            var shownByKind: [String: Bool] = [:]
            for expose in device.exposes where expose.property != "linkquality" {
                let kind = Self.kind(expose)
                // A specific expose left out is reported under its state's key (a child lock's `child_lock`).
                let reason =
                    unmapped[expose.property ?? expose.name ?? expose.type]
                    ?? expose.features.lazy.compactMap { $0.property.flatMap { unmapped[$0] } }.first
                if reason != nil, expose.category == nil { primaryMissing = true }
                shownByKind[kind] = (shownByKind[kind] ?? false) || reason == nil
                if let reason { rows[kind, default: Row(expose: kind)].reasons[reason, default: 0] += 1 }
            }
            for (kind, shown) in shownByKind {
                rows[kind, default: Row(expose: kind)].devices += 1
                if shown { rows[kind]!.shown += 1 }
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
