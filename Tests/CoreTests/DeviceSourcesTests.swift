import Foundation
import Gateway
import HomeModel
import JSON
import Mappings
import Testing

/// The device side alone: what each kind of device message becomes, and what a device command is on the wire.
@Suite("Device sources: Zigbee2MQTT and mapping-file topics in, typed inputs out; device commands out as MQTT")
struct DeviceSourcesTests {
    static let garage = """
        source: mqtt
        accessories:
          - id: garage_door
            name: Garage Door
            availability: { topic: tele/garage/LWT, online: Online, offline: Offline }
            services:
              - type: garage_door_opener
                characteristics:
                  current_door_state:
                    state: { topic: stat/garage/DOOR, map: { OPEN: 0, CLOSED: 1 } }
                  target_door_state:
                    state: { topic: stat/garage/DOOR, map: { OPEN: 0, CLOSED: 1 } }
                    set:   { topic: cmnd/garage/DOOR, map: { 0: OPEN, 1: CLOSE } }
                  obstruction_detected:
                    state: { topic: tele/garage/SENSOR, path: Switch2, map: { "ON": true, "OFF": false } }
        """

    static func sources() -> DeviceSources {
        var mappings = MappingSet()
        #expect(mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        #expect(mappings.add(file: "garage.yaml", text: garage).isEmpty)
        return DeviceSources(mappings: mappings)
    }

    func read(_ topic: String, _ text: String) -> [DeviceInput] { Self.sources().read(topic, Array(text.utf8)) }

    @Test("a bridge's topics: device list, state in both forms, availability, a report; our own /set and /get echoes are nothing")
    func zigbee2mqtt() {
        guard
            case .devices("zigbee2mqtt", let devices)? = read(
                "zigbee2mqtt/bridge/devices", #"[{"ieee_address":"0x1","friendly_name":"bulb","type":"Router"}]"#
            ).first
        else { Issue.record("no device list"); return }
        #expect(devices.map(\.friendlyName) == ["bulb"])
        guard case .bridgeState("zigbee2mqtt", false)? = read("zigbee2mqtt/bridge/state", #"{"state":"offline"}"#).first,
            case .bridgeState("zigbee2mqtt", true)? = read("zigbee2mqtt/bridge/state", "online").first
        else { Issue.record("bridge state not read in both forms"); return }
        guard case .availability("zigbee2mqtt", "hall/bulb", nil)? = read("zigbee2mqtt/hall/bulb/availability", "maybe").first
        else { Issue.record("an unreadable availability is passed on as unknown"); return }
        guard
            case .report("zigbee2mqtt", "hall/bulb", "zigbee2mqtt/hall/bulb", let payload)? = read(
                "zigbee2mqtt/hall/bulb", #"{"state":"ON"}"#
            ).first
        else { Issue.record("no report"); return }
        #expect(payload == Array(#"{"state":"ON"}"#.utf8))
        #expect(read("zigbee2mqtt/bulb/set", #"{"state":"ON"}"#).isEmpty && read("zigbee2mqtt/bulb/get", "{}").isEmpty)
        #expect(read("zigbee2mqtt/bulb/set/brightness", "40").isEmpty && read("zigbee2mqtt/bridge/logging", "{}").isEmpty)
        #expect(read("zigbee2mqtt/hall/bulb/set", "{}").isEmpty && read("zigbee2mqtt/hall/bulb/get/", "{}").isEmpty)
        // Names with slashes whose parts only look like a request are devices' reports.
        for name in ["hall/settings", "hall/se", "set_top/box", "hall/gets/sets", "a//b"] {
            guard case .report("zigbee2mqtt", name, _, _)? = read("zigbee2mqtt/\(name)", #"{"state":"ON"}"#).first else {
                Issue.record("\(name) is not read as a report"); continue
            }
        }
        guard
            case .unreadable("zigbee2mqtt/bridge/groups", "expected a JSON array of groups")? = read("zigbee2mqtt/bridge/groups", "{}")
                .first
        else { Issue.record("a broken group list is not said to be"); return }
    }

    @Test("a device list read where the network thread holds it says what the same message read as usual says")
    func lentInventory() {
        let list =
            #"[{"ieee_address":"0x1","friendly_name":"hall/bulb","type":"Router"},{"ieee_address":"0x2","friendly_name":"plug","type":"Router"}]"#
        var mappings = MappingSet()
        #expect(mappings.add(file: "z.yaml", text: "source: zigbee2mqtt\nbase_topic: upstairs/zigbee\n").isEmpty)
        #expect(mappings.add(file: "n.yaml", text: "source: zigbee2mqtt\nbase_topic: upstairs/zigbee/garage\n").isEmpty)
        let sources = DeviceSources(mappings: mappings)
        func lent(_ topic: String, _ text: String) -> DeviceInput? {
            Array(text.utf8).withUnsafeBytes { sources.inventory(lent: topic, $0) }
        }
        // A bridge whose base lies under another's has its own device list, copied or lent.
        for (topic, bridge) in [
            ("upstairs/zigbee/bridge/devices", "upstairs/zigbee"), ("upstairs/zigbee/garage/bridge/devices", "upstairs/zigbee/garage"),
        ] {
            guard case .devices(let base, let devices)? = lent(topic, list), base == bridge,
                case .devices(let usualBase, let usual)? = sources.read(topic, Array(list.utf8)).first
            else { Issue.record("no device list from the lent bytes on \(topic)"); continue }
            #expect(base == usualBase, "routed as a copied message is")
            #expect(devices.map(\.friendlyName) == ["hall/bulb", "plug"])
            #expect(devices.map(\.friendlyName) == usual.map(\.friendlyName) && devices.map(\.ieeeAddress) == usual.map(\.ieeeAddress))
        }
        guard case .report("upstairs/zigbee/garage", "bulb", _, _)? = sources.read("upstairs/zigbee/garage/bulb", Array("{}".utf8)).first
        else { Issue.record("a report under the inner base is not the inner bridge's"); return }
        guard
            case .unreadable("upstairs/zigbee/bridge/devices", "expected a JSON array of devices")? = lent(
                "upstairs/zigbee/bridge/devices", "{}")
        else { Issue.record("a broken device list is not said to be"); return }
        // Only what `read` would read as a device list: other topics are left to be copied and read as usual.
        #expect(lent("upstairs/zigbee/bridge/definitions", list) == nil && lent("elsewhere/bridge/devices", list) == nil)
        #expect(lent("upstairs/zigbee/bulb", list) == nil && lent("upstairs/zigbee/hall/bridge/devices/set", list) == nil)
    }

    @Test("which topics are read at all: a bridge's topics homegate has no use for, our own echoes and strangers' are not")
    func reads() {
        let sources = Self.sources()
        for topic in [
            "zigbee2mqtt/bulb", "zigbee2mqtt/hall/bulb", "zigbee2mqtt/bulb/availability", "zigbee2mqtt/bridge/devices",
            "zigbee2mqtt/bridge/groups", "zigbee2mqtt/bridge/state", "stat/garage/DOOR", "tele/garage/LWT",
        ] {
            #expect(sources.reads(topic), "\(topic) is read")
        }
        for topic in [
            "zigbee2mqtt/bridge/definitions", "zigbee2mqtt/bridge/info", "zigbee2mqtt/bridge/extensions", "zigbee2mqtt/bulb/set",
            "zigbee2mqtt/bulb/set/brightness", "zigbee2mqtt/bulb/get", "zigbee2mqttx/bulb", "stat/garage/POWER",
        ] {
            #expect(!sources.reads(topic), "\(topic) is not read")
        }
    }

    @Test("a device's own state topic, the common case: read by its bytes, a cleared retained state is nothing")
    func plainStateTopics() {
        guard case .report("zigbee2mqtt", "bulb", "zigbee2mqtt/bulb", _)? = read("zigbee2mqtt/bulb", #"{"state":"ON"}"#).first
        else { Issue.record("no report for a name without a slash"); return }
        guard case .report("zigbee2mqtt", "küche licht", "zigbee2mqtt/küche licht", _)? = read("zigbee2mqtt/küche licht", "{}").first
        else { Issue.record("no report for a name beyond ASCII"); return }
        #expect(read("zigbee2mqtt/bulb", "").isEmpty)
        #expect(read("zigbee2mqttx/bulb", "{}").isEmpty, "a topic that only begins with the base's letters is not the bridge's")
        #expect(read("zigbee2mqtt", "{}").isEmpty)
    }

    @Test("a mapping file's topics: one message feeds every binding on its topic, read through the binding; availability by its words")
    func explicit() {
        let values = read("stat/garage/DOOR", "CLOSED").compactMap { input -> String? in
            guard case .value(_, "garage_door", "garage_door_opener", let name, .success(let value)) = input else { return nil }
            return "\(name)=\(value)"
        }
        #expect(values == ["current_door_state=1", "target_door_state=1"])
        guard
            case .value("tele/garage/SENSOR", _, _, "obstruction_detected", .failure)? = read("tele/garage/SENSOR", #"{"Switch1":"ON"}"#)
                .first
        else { Issue.record("a missing path is a failure with the topic"); return }
        guard case .reachable("tele/garage/LWT", "garage_door", .success(false))? = read("tele/garage/LWT", "Offline").first
        else { Issue.record("no reachability"); return }
        #expect(read("stat/other/DOOR", "OPEN").isEmpty)
        #expect(Self.sources().subscriptions == ["zigbee2mqtt/#", "stat/garage/DOOR", "tele/garage/SENSOR", "tele/garage/LWT"])
    }

    @Test(
        "device commands on the wire: Zigbee2MQTT /set and /get (with an endpoint), a binding's own topic with its retain flag; all QoS 1")
    func commands() {
        let set = DeviceSources.message(for: .zigbee2mqtt(bridge: "zigbee2mqtt", device: "hall/bulb", endpoint: nil, .set, ["state": "ON"]))
        #expect(set.topic == "zigbee2mqtt/hall/bulb/set" && set.text == #"{"state":"ON"}"# && set.qos == 1 && !set.retain)
        let scene = DeviceSources.message(for: .zigbee2mqtt(bridge: "z2m", device: "switch", endpoint: "l2", .set, ["scene_recall": 3]))
        #expect(scene.topic == "z2m/switch/l2/set")
        let get = DeviceSources.message(for: .zigbee2mqtt(bridge: "zigbee2mqtt", device: "bulb", endpoint: nil, .get, ["state": ""]))
        #expect(get.topic == "zigbee2mqtt/bulb/get")
        let relay = DeviceSources.message(for: .mqtt(topic: "cmnd/garage/DOOR", payload: Array("OPEN".utf8), retain: true))
        #expect(relay.topic == "cmnd/garage/DOOR" && relay.text == "OPEN" && relay.retain && relay.qos == 1)
    }
}
