import HomeModel
import Yams

/// Reads YAML nodes of one file, collecting every problem with its line and column.
struct FileReader {
    let file: String
    var diagnostics: [Diagnostic] = []
    /// Appended to messages while expanding a template: where the instance is.
    var context = ""

    init(file: String) { self.file = file }

    mutating func error(_ node: Node?, _ message: String) {
        let mark = node?.mark
        diagnostics.append(Diagnostic(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, message: message + context))
    }

    /// A mapping's entries by key, after reporting unknown keys (with a suggestion) and missing required ones.
    mutating func fields(_ node: Node, _ what: String, allowed: [String], required: [String] = []) -> [String: (key: Node, value: Node)]? {
        guard let mapping = node.mapping else {
            error(node, "\(what) must be a mapping of keys (one of \(allowed.joined(separator: ", ")))")
            return nil
        }
        var named: [(key: String, value: (key: Node, value: Node))] = []
        for (key, value) in mapping {
            guard let name = key.string else {
                error(key, "\(what): keys must be plain words")
                continue
            }
            named.append((name, (key, value)))
        }
        let keys = ObjectKeys(named, allowed: allowed, required: required)
        for unknown in keys.unknown {
            error(unknown.value.key, "unknown key '\(Self.shown(unknown.key))' in \(what)\(unknown.suggestion)")
        }
        for name in keys.missing { error(node, "\(what) needs '\(name)'") }
        return keys.fields
    }

    /// Text from the file as an error message may quote it: a short prefix, control characters
    /// escaped, so a file that is not a mapping file is not echoed into the log.
    static func shown(_ text: String, limit: Int = 24) -> String {
        let head = text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
        let escaped = String(reflecting: head)
        return String(escaped.dropFirst().dropLast())
    }

    /// One of a fixed set of words, or an error naming them (with the closest).
    mutating func choice<T: CaseIterable & RawRepresentable>(_ node: Node?, _ what: String, _ type: T.Type) -> T?
    where T.RawValue == String {
        guard let node, let text = string(node, what) else { return nil }
        if let value = T(rawValue: text) { return value }
        let choices = T.allCases.map(\.rawValue)
        error(node, "\(what) must be one of \(choices.joined(separator: ", ")), not '\(text)'\(didYouMean(text, choices))")
        return nil
    }

    mutating func string(_ node: Node?, _ what: String) -> String? {
        guard let node else { return nil }
        guard let scalar = node.scalar, !isNull(node) else {
            error(node, "\(what) must be text")
            return nil
        }
        return scalar.string
    }

    mutating func nonEmpty(_ node: Node?, _ what: String) -> String? {
        guard let text = string(node, what) else { return nil }
        guard !text.trimmingSpaces.isEmpty else {
            error(node, "\(what) must not be empty")
            return nil
        }
        return text
    }

    mutating func bool(_ node: Node?, _ what: String) -> Bool? {
        guard let node else { return nil }
        guard let value = node.bool, node.scalar != nil else {
            error(node, "\(what) must be true or false, not '\(node.string ?? "a list or mapping")'")
            return nil
        }
        return value
    }

    mutating func int(_ node: Node?, _ what: String, _ range: ClosedRange<Int>) -> Int? {
        guard let node else { return nil }
        guard let value = node.int else {
            error(node, "\(what) must be a whole number, not '\(node.string ?? "a list or mapping")'")
            return nil
        }
        guard range.contains(value) else {
            error(node, "\(what) must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
            return nil
        }
        return value
    }

    mutating func number(_ node: Node, _ what: String) -> Double? {
        guard let value = node.float, node.scalar != nil, value.isFinite else {
            error(node, "\(what) must be a number, not '\(node.string ?? "a list or mapping")'")
            return nil
        }
        return value
    }

    /// `[a, b]` in the order written.
    mutating func pair(_ node: Node?, _ what: String) -> (Double, Double)? {
        guard let node else { return nil }
        guard let items = node.sequence, items.count == 2 else {
            error(node, "\(what) needs two numbers, like [0, 100]")
            return nil
        }
        guard let a = number(items[0], what), let b = number(items[1], what) else { return nil }
        guard a != b else {
            error(node, "\(what) needs two different numbers")
            return nil
        }
        return (a, b)
    }

    /// `[a, b]` with a < b.
    mutating func range(_ node: Node?, _ what: String) -> ClosedRange<Double>? {
        guard let node else { return nil }
        guard let items = node.sequence, items.count == 2 else {
            error(node, "\(what) needs two numbers, like [0, 100]")
            return nil
        }
        guard let low = number(items[0], what), let high = number(items[1], what) else { return nil }
        guard low != high else {
            error(node, "\(what) needs two different numbers")
            return nil
        }
        return min(low, high)...max(low, high)
    }

    mutating func stringList(_ node: Node?, _ what: String) -> [String]? {
        guard let node else { return nil }
        guard let items = node.sequence else {
            error(node, "\(what) must be a list, like [battery, linkquality]")
            return nil
        }
        return items.compactMap { string($0, what) }
    }

    func isNull(_ node: Node) -> Bool { node.tag.description.hasSuffix(":null") }
}
