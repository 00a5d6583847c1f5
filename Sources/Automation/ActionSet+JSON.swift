public import HomeModel
public import JSON

extension Action {
    /// `{"characteristic": "hall_light/lightbulb/brightness", "value": 80}` (or accessory, service and characteristic apart).
    public init(json: JSONValue, at path: String) throws(AutomationError) {
        let fields = try Read.object(json, at: path, allowed: ["characteristic", "accessory", "service", "value"])
        self.init(try Read.characteristicPath(fields, at: path), try Read.value(fields["value"], at: Read.join(path, "value")))
    }

    public var json: JSONValue { ["characteristic": .string(path.description), "value": value.json] }

    /// A list of actions, `at` naming the list in errors.
    public static func list(_ json: JSONValue?, at path: String) throws(AutomationError) -> [Action] {
        var actions: [Action] = []
        for (i, item) in try Read.array(json, at: path).enumerated() { actions.append(try Action(json: item, at: "\(path)[\(i)]")) }
        return actions
    }

    /// Characteristic paths to remove: `"a/s/c"` strings or `{"characteristic": "a/s/c"}`.
    public static func paths(_ json: JSONValue?, at path: String) throws(AutomationError) -> [CharacteristicPath] {
        var paths: [CharacteristicPath] = []
        for (i, item) in try Read.array(json, at: path).enumerated() {
            if case .string(let text) = item, let parsed = CharacteristicPath(text) { paths.append(parsed); continue }
            let fields = try Read.object(item, at: "\(path)[\(i)]", allowed: ["characteristic", "accessory", "service", "value"])
            paths.append(try Read.characteristicPath(fields, at: "\(path)[\(i)]"))
        }
        return paths
    }
}

extension ActionSet {
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "home": .string(home), "actions": .array(actions.map(\.json)),
        ]
        if let lastExecuted { fields["last_executed"] = .string(Write.instant(lastExecuted)) }
        if let recall { fields["zigbee2mqtt_scene"] = recall.json }
        return .object(fields)
    }
}

extension SceneRecall {
    /// `{"accessory": "desk_lights", "scene": 1}`, with `"endpoint": "2"` for a device's other endpoints.
    public var json: JSONValue {
        var fields: [String: JSONValue] = ["accessory": .string(accessory), "scene": .integer(scene)]
        if let endpoint { fields["endpoint"] = .string(endpoint) }
        return .object(fields)
    }

    public init(json: JSONValue, at path: String) throws(AutomationError) {
        let fields = try Read.object(json, at: path, allowed: ["accessory", "scene", "endpoint"])
        let accessory = try Read.string(fields["accessory"], at: Read.join(path, "accessory"))
        guard case .integer(let scene)? = fields["scene"], (0...255).contains(scene) else {
            throw AutomationError(at: Read.join(path, "scene"), "expected a Zigbee2MQTT scene id, a whole number from 0 to 255")
        }
        let endpoint = fields["endpoint"] == nil ? nil : try Read.string(fields["endpoint"], at: Read.join(path, "endpoint"))
        self.init(accessory: accessory, scene: scene, endpoint: endpoint)
    }
}
