extension Zigbee2MQTTCoverage {
    /// The report with a bridge: the shares in HomeKit and in the bridge, in total and per kind of
    /// expose, then what the bridge leaves out (services with no device type, characteristics).
    func table(bridge: String) -> String {
        let devices = fully.count + partly.count + none.count
        var lines = ["\(devices) devices: \(fully.count) fully shown in HomeKit, \(partly.count) partly, \(none.count) not at all", ""]
        for (device, reason) in none { lines.append("- \(device): \(reason)") }
        if !none.isEmpty { lines.append("") }
        lines += [
            "| exposes (a kind on a device) | count | HomeKit | \(bridge) |", "| --- | --- | --- | --- |",
            "| all | \(total.exposes) | \(Self.share(total.shown, of: total.exposes)) | \(Self.share(total.bridged, of: total.exposes)) |",
            "| primary (no setting or diagnostic) | \(primary.exposes) | \(Self.share(primary.shown, of: primary.exposes)) | "
                + "\(Self.share(primary.bridged, of: primary.exposes)) |",
            "",
            "| expose | devices | HomeKit | \(bridge) | not in HomeKit, and why |", "| --- | --- | --- | --- | --- |",
        ]
        for row in rows.values.sorted(by: { ($0.devices, $1.expose) > ($1.devices, $0.expose) }) {
            let why = row.reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) (\($0.value))" }
            lines.append(
                "| `\(row.expose)` | \(row.devices) | \(Self.share(row.shown, of: row.devices)) | \(Self.share(row.bridged, of: row.devices)) | "
                    + "\(why.joined(separator: "; ")) |")
        }
        lines += ["", "| feature of an expose | devices | HomeKit | \(bridge) |", "| --- | --- | --- | --- |"]
        for row in features.values.sorted(by: { ($0.devices, $1.expose) > ($1.devices, $0.expose) }) {
            lines.append(
                "| `\(row.expose)` | \(row.devices) | \(Self.share(row.shown, of: row.devices)) | \(Self.share(row.bridged, of: row.devices)) |")
        }
        lines += ["", "Services \(bridge) has no device type for (how many): " + Self.counted(unbridgedServices), ""]
        lines += ["| service | characteristic with no \(bridge) counterpart | services |", "| --- | --- | --- |"]
        for (key, count) in leftOut.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            let parts = key.split(separator: " ", maxSplits: 1)
            lines.append("| `\(parts[0])` | `\(parts.count > 1 ? parts[1] : "")` | \(count) |")
        }
        return lines.joined(separator: "\n")
    }

    /// `12 (40 %)`.
    static func share(_ part: Int, of whole: Int) -> String {
        whole == 0 ? "\(part)" : "\(part) (\(Int((Double(part) * 100 / Double(whole)).rounded())) %)"
    }

    static func counted(_ counts: [String: Int]) -> String {
        counts.isEmpty
            ? "none"
            : counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "`\($0.key)` \($0.value)" }.joined(separator: ", ")
    }
}
