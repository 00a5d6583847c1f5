/// Where a characteristic lives: `hallway_light/lightbulb/brightness`.
public struct CharacteristicPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var accessory: String
    public var service: String
    public var characteristic: String

    public init(accessory: String, service: String, characteristic: String) {
        self.accessory = accessory
        self.service = service
        self.characteristic = characteristic
    }

    /// `accessory/service/characteristic`, each part non-empty.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(accessory: String(parts[0]), service: String(parts[1]), characteristic: String(parts[2]))
    }

    public var description: String { "\(accessory)/\(service)/\(characteristic)" }

    public static func < (a: CharacteristicPath, b: CharacteristicPath) -> Bool { a.description < b.description }
}

extension Accessory {
    /// The characteristic at `path` if it is on this accessory.
    public subscript(path: CharacteristicPath) -> Characteristic? { self[path.service]?[path.characteristic] }
}
