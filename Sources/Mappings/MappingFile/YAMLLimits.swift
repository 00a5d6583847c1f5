public import Yams

/// Sizes a hand-edited YAML file may have. Aliases (`*name`) are cheap to write and expensive to
/// expand: nine levels of nine make 43 million values from 700 bytes. A document is measured with
/// its aliases expanded, stopping as soon as it is over the limit, before anything walks it.
public enum YAMLLimits {
    /// A mapping file: the largest real ones have a few thousand values.
    public static let mappingFileBytes = 1 << 20
    public static let mappingFileValues = 100_000
    /// An export of a whole home: ten thousand triggers are about half a million values.
    public static let importFileBytes = 64 << 20
    public static let importFileValues = 5_000_000

    /// Why `root` is too big, or nil.
    public static func problem(_ root: Node, maximumValues: Int) -> String? {
        var budget = maximumValues
        guard fits(root, &budget) else {
            return "the file holds more than \(maximumValues.formatted) values once its aliases (*name) are expanded; "
                + "refused before reading it further (at most \(maximumValues.formatted))"
        }
        return nil
    }

    public static func problem(bytes: Int, maximum: Int) -> String? {
        bytes > maximum ? "the file is \(bytes.formatted) bytes; at most \(maximum.formatted) are read" : nil
    }

    private static func fits(_ node: Node, _ budget: inout Int) -> Bool {
        budget -= 1
        guard budget >= 0 else { return false }
        switch node {
        case .scalar, .alias: return true
        case .mapping(let mapping):
            for (key, value) in mapping where !(fits(key, &budget) && fits(value, &budget)) { return false }
            return true
        case .sequence(let sequence):
            for item in sequence where !fits(item, &budget) { return false }
            return true
        }
    }
}

extension Int {
    /// `100000` → `100,000`, without Foundation's locale machinery.
    var formatted: String {
        let digits = String(self.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (self < 0 ? "-" : "") + out
    }
}
