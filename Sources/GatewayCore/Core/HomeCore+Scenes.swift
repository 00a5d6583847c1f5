import Automation
import HomeModel
import JSON
import Mappings

/// Scenes that Zigbee2MQTT devices keep themselves (stored with `scene_store`, listed per device
/// endpoint in `bridge/devices` and per group in `bridge/groups`) are action sets of the home of
/// their device's or group's accessory. They come from the bridge and change only there: the
/// request API runs them but does not edit or remove them. They are stored like the user's, so a
/// trigger that runs one keeps it across a restart.
extension HomeCore {
    /// Brings the Zigbee2MQTT scene action sets in line with the bridges' device and group lists
    /// and with where their accessories are. A scene whose accessory is unknown is removed only
    /// once every bridge has sent its lists: at start, those come a moment after the store's.
    mutating func syncScenes() {
        step.scenesStale = false
        let settled = bridges.listsKnown
        // Scenes by device address (a group's is `group:<id>`), per bridge.
        let scenesByKey = bridges.scenes
        var wanted: [(recall: SceneRecall, name: String, home: String, owner: String)] = []
        for id in table.order {
            guard let entry = table[id], case .zigbee2mqtt(let index, let mapping) = entry.source,
                let scenes = scenesByKey[index]?[mapping.ieeeAddress]
            else { continue }
            let home = structure.home(ofAccessory: id) ?? structure.primaryHome
            for scene in scenes {
                wanted.append(
                    (SceneRecall(accessory: id, scene: scene.id, endpoint: scene.endpoint), scene.name, home, entry.accessory.name))
            }
        }
        // A scene's own name where it is the only one so called in its home, else with its accessory's.
        var userNames: [String: Set<String>] = [:]
        for set in automation.actionSets.values where set.recall == nil { userNames[set.home, default: []].insert(set.name.lowercased()) }
        var count: [String: Int] = [:]
        for scene in wanted { count["\(scene.home)\u{0}\(scene.name.lowercased())", default: 0] += 1 }
        var taken = userNames
        var existing: [SceneRecall: String] = [:]
        for set in automation.actionSets.values { if let recall = set.recall { existing[recall] = set.id } }
        var kept: Set<String> = []
        for scene in wanted {
            let plain =
                count["\(scene.home)\u{0}\(scene.name.lowercased())"] == 1
                && userNames[scene.home]?.contains(scene.name.lowercased()) != true
            let name = Naming.unique(plain ? scene.name : "\(scene.name) (\(scene.owner))") {
                taken[scene.home]?.contains($0.lowercased()) == true
            }
            taken[scene.home, default: []].insert(name.lowercased())
            let id = existing[scene.recall] ?? Self.sceneID(scene.recall) { automation.actionSets[$0] != nil || kept.contains($0) }
            kept.insert(id)
            if var set = automation.actionSets[id] {
                guard set.name != name || set.home != scene.home else { continue }
                let moved = set.home != scene.home
                set.name = name
                set.home = scene.home
                putActionSet(set, change: .updated)
                // Its accessory went to another home, and the scene with it: the old home's triggers no longer run it.
                if moved { for event in automation.unlink(actionSet: id, outside: scene.home) { emit(.event(event)) } }
            } else {
                putActionSet(ActionSet(id: id, name: name, home: scene.home, recall: scene.recall), change: .added)
                notice(
                    .info, .automation,
                    "Zigbee2MQTT scene \(scene.recall.scene) of \(scene.recall.accessory) is action set '\(name)' (\(id))")
            }
        }
        for id in automation.actionSetOrder where !kept.contains(id) {
            guard let recall = automation.actionSets[id]?.recall, settled || table[recall.accessory] != nil else { continue }
            notice(.info, .automation, "Zigbee2MQTT scene \(recall.scene) of \(recall.accessory) is gone; action set \(id) removed")
            removeActionSet(id)
        }
    }

    /// `desk_lights_scene_1`, `bulb_scene_3_l2`: stable for the scene, `_z2m` when a user's action set has the id.
    static func sceneID(_ recall: SceneRecall, taken: (String) -> Bool) -> String {
        let base =
            "\(recall.accessory)_scene_\(recall.scene)"
            + (recall.endpoint.map { "_\(Accessory.topicSafeID($0, fallback: "endpoint"))" } ?? "")
        return taken(base) ? Naming.newID(for: base + "_z2m", taken: taken) : base
    }

    /// Sends `{"scene_recall": <scene>}` to the device or group that keeps the scene.
    mutating func recall(_ recall: SceneRecall) -> Result<Void, HomeError> {
        guard let entry = table[recall.accessory] else { return .failure(.notFound("\(recall.accessory): no such accessory")) }
        guard case .zigbee2mqtt(let index, let mapping) = entry.source else {
            return .failure(.invalid("\(recall.accessory): not a Zigbee2MQTT device or group"))
        }
        guard entry.accessory.reachable else { return .failure(.unreachable("\(recall.accessory): is not reachable")) }
        counters.deviceWrites += 1
        emit(
            .device(
                .zigbee2mqtt(
                    bridge: index, device: mapping.friendlyName, endpoint: recall.endpoint, .set,
                    ["scene_recall": .integer(recall.scene)])))
        return .success(())
    }

    /// Why an action set cannot be edited or removed through the API, or nil when it can.
    func readOnlyReason(_ set: ActionSet) -> String? {
        guard let recall = set.recall else { return nil }
        return "action set '\(set.name)' is Zigbee2MQTT scene \(recall.scene) of \(recall.accessory): it changes only in Zigbee2MQTT "
            + "(scene_store, scene_rename, scene_remove on its /set topic), and follows from there"
    }
}
