/// The rules every user-given name follows (homes, rooms, zones, accessories, action sets, triggers):
/// trimmed, not empty, no control characters, at most 64 characters, unique in its scope ignoring case.
public enum Naming {
    public static let maximumLength = 64

    /// The name as it will be kept (trimmed), or why it cannot be one.
    public static func check(_ raw: String, for kind: String) -> Result<String, StructureError> {
        let name = raw.trimmingSpaces
        guard !name.isEmpty else { return .failure(.badName(kind: kind, raw, "a name cannot be empty")) }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .failure(.badName(kind: kind, raw, "a name cannot contain control characters"))
        }
        guard name.count <= maximumLength else {
            return .failure(.badName(kind: kind, raw, "a name can be at most \(maximumLength) characters, this one has \(name.count)"))
        }
        return .success(name)
    }

    /// Names compare without regard to case: "Kitchen" and "kitchen" are the same room.
    public static func same(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }

    /// A topic-safe id from `name` that `taken` does not hold yet: `kitchen`, `kitchen_2`, ...
    public static func newID(for name: String, taken: (String) -> Bool) -> String {
        unique(id: Accessory.topicSafeID(name), taken: taken)
    }

    /// `id`, or when it is taken the first of `id_2`, `id_3`, ... that is not: the one rule for every id
    /// made unique (accessories, services, action sets, triggers, homes, rooms, zones).
    public static func unique(id base: String, taken: (String) -> Bool) -> String {
        guard taken(base) else { return base }
        var n = 2
        while taken("\(base)_\(n)") { n += 1 }
        return "\(base)_\(n)"
    }

    /// `name` or, when it is taken, `name 2`, `name 3`, ...: how HomeKit names a second "Lamp".
    public static func unique(_ name: String, taken: (String) -> Bool) -> String {
        guard taken(name) else { return name }
        var n = 2
        while taken("\(name) \(n)") { n += 1 }
        return "\(name) \(n)"
    }
}

extension String {
    /// Without white space or line breaks at either end.
    public var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace || first.isNewline { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace || last.isNewline { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
