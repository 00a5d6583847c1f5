import JSON

/// Scenes as Zigbee2MQTT devices keep them: `scene_store` saves each member's state under the scene
/// (per group, or group 0 for a device's own), `scene_recall` puts it back, `scene_remove` forgets
/// it; the scene lists in `bridge/groups` and `bridge/devices` follow, as Zigbee2MQTT republishes them.
extension SimulatedBridge {
    static let sceneKeys: Set<String> = ["scene_store", "scene_recall", "scene_remove"]

    /// Where a device keeps a scene: its address, the group (0 for the device's own) and the scene.
    static func sceneKey(_ ieee: String, group: Int, scene: Int) -> String { "\(ieee)#\(group)#\(scene)" }

    /// Takes the simulator-only `state` of each scene in the served files as what the scene holds,
    /// and leaves the published lists as Zigbee2MQTT's.
    mutating func seedScenes() {
        for g in groups.indices {
            guard case .array(let scenes)? = groups[g]["scenes"], let group = groups[g]["id"]?.intValue else { continue }
            for scene in scenes {
                guard let id = scene["id"]?.intValue, case .object(let state)? = scene["state"] else { continue }
                for member in groups[g]["members"]?.arrayValue ?? [] {
                    if let ieee = member["ieee_address"]?.stringValue { sceneStates[Self.sceneKey(ieee, group: group, scene: id)] = state }
                }
            }
            groups[g] = groups[g].setting("scenes", to: .array(scenes.map(Self.withoutState)))
        }
        for d in devices.indices {
            guard case .object(var endpoints)? = devices[d].entry["endpoints"] else { continue }
            for (key, endpoint) in endpoints {
                guard case .array(let scenes)? = endpoint["scenes"] else { continue }
                for scene in scenes {
                    guard let id = scene["id"]?.intValue, case .object(let state)? = scene["state"] else { continue }
                    sceneStates[Self.sceneKey(devices[d].ieeeAddress, group: 0, scene: id)] = state
                }
                endpoints[key] = endpoint.setting("scenes", to: .array(scenes.map(Self.withoutState)))
            }
            devices[d].entry = devices[d].entry.setting("endpoints", to: .object(endpoints))
        }
    }

    private static func withoutState(_ scene: JSONValue) -> JSONValue {
        guard case .object(var fields) = scene else { return scene }
        fields["state"] = nil
        return .object(fields)
    }

    /// Handles the scene commands of a `/set` payload to `members` (one device, or a group's
    /// members with the group's id and name); nil when the payload has none.
    mutating func scenes(_ fields: [String: JSONValue], members: [Int], group: (id: Int, name: String)?) -> [Publish]? {
        guard fields.keys.contains(where: Self.sceneKeys.contains) else { return nil }
        let groupID = group?.id ?? 0
        var out: [Publish] = []
        if let store = fields["scene_store"] {
            guard let id = store.intValue ?? store["ID"]?.intValue, (0...255).contains(id) else { return [] }
            let name = store["name"]?.stringValue ?? "Scene \(id)"
            for i in members {
                let settable = devices[i].properties.filter { $0.value.isSettable }.keys
                sceneStates[Self.sceneKey(devices[i].ieeeAddress, group: groupID, scene: id)] = devices[i].state.filter {
                    settable.contains($0.key)
                }
            }
            out += listScene(id, name: name, members: members, group: group)
        }
        if let recall = fields["scene_recall"]?.intValue {
            var groupState: [String: JSONValue] = [:]
            for i in members where devices[i].isServed {
                guard let saved = sceneStates[Self.sceneKey(devices[i].ieeeAddress, group: groupID, scene: recall)],
                    devices[i].apply(set: saved)
                else { continue }
                out.append(statePublish(devices[i]))
                for key in saved.keys { if let value = devices[i].state[key] { groupState[key] = value } }
            }
            if let group, !groupState.isEmpty {
                out.append(Publish("\(baseTopic)/\(group.name)", JSONValue.object(groupState).serialized(sortedKeys: true)))
            }
        }
        if let remove = fields["scene_remove"]?.intValue {
            for i in members { sceneStates[Self.sceneKey(devices[i].ieeeAddress, group: groupID, scene: remove)] = nil }
            out += listScene(remove, name: nil, members: members, group: group)
        }
        return out
    }

    /// Adds (or, without a name, removes) the scene in the group's or device's list and republishes it.
    private mutating func listScene(_ id: Int, name: String?, members: [Int], group: (id: Int, name: String)?) -> [Publish] {
        func updated(_ list: JSONValue?) -> JSONValue {
            var scenes = (list?.arrayValue ?? []).filter { $0["id"]?.intValue != id }
            if let name { scenes.append(["id": .integer(id), "name": .string(name)]) }
            return .array(scenes)
        }
        if let group {
            guard let g = groups.firstIndex(where: { $0["id"]?.intValue == group.id }) else { return [] }
            groups[g] = groups[g].setting("scenes", to: updated(groups[g]["scenes"]))
            return [Publish("\(baseTopic)/bridge/groups", JSONValue.array(groups).serialized(), retain: true)]
        }
        guard let i = members.first else { return [] }
        var endpoints = devices[i].entry["endpoints"]?.objectValue ?? [:]
        let first = endpoints.keys.sorted { (Int($0) ?? .max, $0) < (Int($1) ?? .max, $1) }.first ?? "1"
        endpoints[first] = (endpoints[first] ?? .object([:])).setting("scenes", to: updated(endpoints[first]?["scenes"]))
        devices[i].entry = devices[i].entry.setting("endpoints", to: .object(endpoints))
        return [devicesMessage()]
    }
}
