/// MQTT's rules for topic names and filters, checked before anything reaches libmosquitto, which
/// reads topics as C strings: a NUL would silently send a message to a shorter topic.
public enum MQTTTopic {
    /// MQTT's limit: a topic is a length-prefixed UTF-8 string.
    public static let maximumBytes = 65_535

    /// Why `topic` cannot be published to, or nil.
    public static func problem(publishing topic: String) -> String? {
        let scan = Scan(topic)
        if let problem = common(topic, scan) { return problem }
        if scan.wildcard { return "'+' and '#' are wildcards, not allowed in a topic to publish to" }
        return nil
    }

    /// Why `filter` cannot be subscribed to, or nil: wildcards only as whole levels, `#` only last.
    public static func problem(filter: String) -> String? {
        if let problem = common(filter, Scan(filter)) { return problem }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("+"), level != "+" { return "'+' must be a whole topic level" }
            if level.contains("#"), level != "#" || index != levels.count - 1 { return "'#' must be the whole last topic level" }
        }
        return nil
    }

    private static func common(_ topic: String, _ scan: Scan) -> String? {
        if topic.isEmpty { return "the topic is empty" }
        if scan.nul { return "it contains a NUL character, which would cut the topic short" }
        if topic.utf8.count > maximumBytes { return "it is longer than \(maximumBytes) bytes" }
        if scan.replacement { return "it is not valid UTF-8" }
        return nil
    }

    /// One pass over the topic's bytes, as every publish makes it (three generic scans of the
    /// String's views cost more than the rest of a publish's Swift side).
    private struct Scan {
        var nul = false
        var wildcard = false
        /// U+FFFD (EF BF BD): what decoding leaves where the bytes were not UTF-8.
        var replacement = false

        init(_ topic: String) {
            var topic = topic
            topic.withUTF8 { bytes in
                for index in bytes.indices {
                    switch bytes[index] {
                    case 0: nul = true
                    case UInt8(ascii: "+"), UInt8(ascii: "#"): wildcard = true
                    case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBF && bytes[index + 2] == 0xBD: replacement = true
                    default: break
                    }
                }
            }
        }
    }
}
