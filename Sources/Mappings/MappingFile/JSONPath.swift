public import JSON

/// A path into a JSON payload: `state.brightness`, `sensors[0].temp`, `$.POWER`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]
    public let description: String

    /// nil when the text is not a path (empty parts, an unclosed bracket).
    public init?(_ text: String) {
        description = text
        var body = Substring(text)
        if body.hasPrefix("$.") { body = body.dropFirst(2) } else if body == "$" { body = "" }
        var components: [Component] = []
        for part in body.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = part
            if let bracket = rest.firstIndex(of: "[") {
                let key = rest[..<bracket]
                if !key.isEmpty { components.append(.key(String(key))) }
                rest = rest[bracket...]
                while rest.hasPrefix("[") {
                    guard let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]),
                        index >= 0
                    else { return nil }
                    components.append(.index(index))
                    rest = rest[rest.index(after: close)...]
                }
                guard rest.isEmpty else { return nil }
            } else {
                guard !rest.isEmpty else { return nil }
                components.append(.key(String(rest)))
            }
        }
        guard !components.isEmpty else { return nil }
        self.components = components
    }

    public func value(in json: JSONValue) -> JSONValue? {
        var current = json
        for component in components {
            switch component {
            case .key(let key): guard let next = current[key] else { return nil }; current = next
            case .index(let index): guard let next = current[index] else { return nil }; current = next
            }
        }
        return current
    }
}
