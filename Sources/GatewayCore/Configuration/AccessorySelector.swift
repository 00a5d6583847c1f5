import Foundation

/// One entry of `hap.include` / `hap.exclude`: `home:Home`, `room:Living room`, `zone:Upstairs`,
/// `accessory:hallway_sensor`. The kind says what the value names; the value matches that thing's
/// id or its name, ignoring case (as homegate compares names everywhere), so a rename in the web
/// page or Zigbee2MQTT is followed when the selector uses the name.
public struct AccessorySelector: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case home, room, zone, accessory
    }

    public var kind: Kind
    /// Trimmed, never empty.
    public var value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// `kind:value`, or why it is not one.
    public static func parse(_ text: String) -> Result<AccessorySelector, SelectorProblem> {
        let kinds = Kind.allCases.map { "\($0.rawValue):" }.joined(separator: ", ")
        guard let colon = text.firstIndex(of: ":") else {
            return .failure(SelectorProblem("expected kind:name with a kind of \(kinds) like room:Kitchen, got '\(text)'"))
        }
        let prefix = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        guard let kind = Kind(rawValue: prefix) else {
            return .failure(SelectorProblem("'\(text)' has the kind '\(prefix)'; expected one of \(kinds)"))
        }
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else {
            return .failure(SelectorProblem("'\(text)' names no \(kind.rawValue): expected an id or a name after '\(kind.rawValue):'"))
        }
        return .success(AccessorySelector(kind: kind, value: value))
    }

    /// Whether `id` or `name` is what the selector names.
    public func names(id: String, name: String) -> Bool {
        let wanted = value.lowercased()
        return id.lowercased() == wanted || name.lowercased() == wanted
    }

    public var description: String { "\(kind.rawValue):\(value)" }
}

/// Why a selector cannot be read.
public struct SelectorProblem: Error, Sendable, Equatable {
    public var message: String
    init(_ message: String) { self.message = message }
}
