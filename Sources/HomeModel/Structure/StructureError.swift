/// Why a change to homes, rooms, zones or placements is refused, in words for a person.
public enum StructureError: Error, Sendable, Hashable, CustomStringConvertible {
    case badName(kind: String, String, String)
    case duplicateName(kind: String, String, scope: String)
    case notFound(kind: String, String, suggestion: String)
    case lastHome
    case primaryHome(String)
    case defaultRoom(String)
    case otherHome(String)
    case zoneMembership(String)

    public var description: String {
        switch self {
        case .badName(let kind, let raw, let rule): "\(kind) name '\(raw)': \(rule)"
        case .duplicateName(let kind, let name, let scope):
            "there is already \("aeiou".contains(kind.first ?? "x") ? "an" : "a") \(kind) named '\(name)' \(scope) (names are unique, ignoring case)"
        case .notFound(let kind, let ref, let suggestion): "no \(kind) '\(ref)'\(suggestion)"
        case .lastHome: "the last home cannot be removed"
        case .primaryHome(let name): "'\(name)' is the primary home and cannot be removed; make another home primary first"
        case .defaultRoom(let name): "'\(name)' is the room for the entire home and cannot be removed"
        case .otherHome(let text): text
        case .zoneMembership(let text): text
        }
    }
}
