public import Foundation
public import HomeModel

/// One characteristic write in an action set.
public struct Action: Sendable, Hashable {
    public var path: CharacteristicPath
    public var value: CharacteristicValue

    public init(_ path: CharacteristicPath, _ value: CharacteristicValue) {
        self.path = path
        self.value = value
    }
}

/// A scene: writes run together, at most one per characteristic (as in HomeKit).
public struct ActionSet: Sendable, Hashable {
    public let id: String
    public var name: String
    public let home: String
    public var actions: [Action]
    public var lastExecuted: Date?

    public init(id: String, name: String, home: String, actions: [Action] = [], lastExecuted: Date? = nil) {
        self.id = id
        self.name = name
        self.home = home
        self.actions = actions
        self.lastExecuted = lastExecuted
    }

    /// Adds actions, refusing a second write to a characteristic the set already writes.
    public mutating func add(_ new: [Action]) throws(AutomationError) {
        var paths = Set(actions.map(\.path))
        for action in new {
            guard paths.insert(action.path).inserted else {
                throw AutomationError("\(name) already has an action for \(action.path); remove it first")
            }
        }
        actions += new
    }

    public mutating func remove(_ paths: [CharacteristicPath]) throws(AutomationError) {
        for path in paths where !actions.contains(where: { $0.path == path }) {
            throw AutomationError("\(name) has no action for \(path)")
        }
        actions.removeAll { paths.contains($0.path) }
    }
}
