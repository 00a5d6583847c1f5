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

/// A scene that Zigbee2MQTT devices keep themselves (`scene_store`), recalled with one message
/// (`{"scene_recall": <scene>}` on the device's or group's `/set`).
public struct SceneRecall: Sendable, Hashable {
    /// The accessory of the device or group that holds the scene.
    public var accessory: String
    /// The scene's id in Zigbee2MQTT (0 to 255).
    public var scene: Int
    /// The device endpoint that holds it, when it is not the device's first: `<name>/<endpoint>/set`.
    public var endpoint: String?

    public init(accessory: String, scene: Int, endpoint: String? = nil) {
        self.accessory = accessory
        self.scene = scene
        self.endpoint = endpoint
    }
}

/// A scene: writes run together, at most one per characteristic (as in HomeKit). One that
/// Zigbee2MQTT keeps (`recall`) has no writes: it comes from the bridge, and changes only there.
public struct ActionSet: Sendable, Hashable {
    public let id: String
    public var name: String
    public var home: String
    public var actions: [Action]
    public var lastExecuted: Date?
    /// Set for a scene stored in Zigbee2MQTT devices; such an action set is read-only.
    public var recall: SceneRecall?

    public init(id: String, name: String, home: String, actions: [Action] = [], lastExecuted: Date? = nil, recall: SceneRecall? = nil) {
        self.id = id
        self.name = name
        self.home = home
        self.actions = actions
        self.lastExecuted = lastExecuted
        self.recall = recall
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
