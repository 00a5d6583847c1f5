/// MQTT's rules for topic names and filters, checked before anything reaches libmosquitto, which
/// reads topics as C strings: a NUL would silently send a message to a shorter topic.
public enum MQTTTopic {
    /// MQTT's limit: a topic is a length-prefixed UTF-8 string.
    public static let maximumBytes = 65_535

    /// Why `topic` cannot be published to, or nil.
    public static func problem(publishing topic: String) -> String? {
        if let problem = common(topic) { return problem }
        if topic.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            return "'+' and '#' are wildcards, not allowed in a topic to publish to"
        }
        return nil
    }

    /// Why `filter` cannot be subscribed to, or nil: wildcards only as whole levels, `#` only last.
    public static func problem(filter: String) -> String? {
        if let problem = common(filter) { return problem }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("+"), level != "+" { return "'+' must be a whole topic level" }
            if level.contains("#"), level != "#" || index != levels.count - 1 { return "'#' must be the whole last topic level" }
        }
        return nil
    }

    private static func common(_ topic: String) -> String? {
        if topic.isEmpty { return "the topic is empty" }
        if topic.utf8.contains(0) { return "it contains a NUL character, which would cut the topic short" }
        if topic.utf8.count > maximumBytes { return "it is longer than \(maximumBytes) bytes" }
        if topic.unicodeScalars.contains("\u{FFFD}") { return "it is not valid UTF-8" }
        return nil
    }
}
