import Foundation
import HomeModel
import JSON
import Testing

@testable import Mappings

@Suite("Mapping files")
struct MappingFileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func load(_ text: String, file: String = "test.yaml") -> (MappingSet, [String]) {
        var set = MappingSet()
        let diagnostics = set.add(file: file, text: text)
        return (set, diagnostics.map(\.description))
    }

    @Test("the shipped mappings/ (the image's default) is the Zigbee2MQTT bridge alone, with no overrides and no demo devices")
    func shippedDefault() throws {
        let (set, diagnostics) = MappingSet.load(directory: Self.repository.appendingPathComponent("mappings").path)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(set.zigbee2mqtt.map(\.baseTopic) == ["zigbee2mqtt"])
        #expect(set.zigbee2mqtt.first?.devices.isEmpty == true)
        #expect(set.accessories.isEmpty)
    }

    @Test("the demo house's demo/mappings/ validate clean")
    func shipped() throws {
        let (set, diagnostics) = MappingSet.load(directory: Self.repository.appendingPathComponent("demo/mappings").path)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(set.zigbee2mqtt.count == 1)
        #expect(Set(set.accessories.map(\.accessory.id)) == ["garage_door", "tv_plug", "heater_plug", "hallway_dimmer"])
        #expect(set.zigbee2mqtt.first?.devices["bulb"] == Zigbee2MQTTOverride(name: "Desk Lamp", room: "Office"))
    }

    @Test("a zigbee2mqtt file: base topic and overrides by name or IEEE address")
    func zigbee2mqtt() throws {
        let (set, diagnostics) = load(
            """
            source: zigbee2mqtt
            base_topic: z2m
            devices:
              hall_switch: { service: outlet }
              "0x00158d0001a2b3c4": { exclude: true, exclude_properties: [battery] }
            """)
        #expect(diagnostics.isEmpty)
        let source = try #require(set.zigbee2mqtt.first)
        #expect(source.baseTopic == "z2m")
        #expect(source.devices["hall_switch"]?.service == .outlet)
        #expect(source.devices["0x00158d0001a2b3c4"] == Zigbee2MQTTOverride(exclude: true, excludeProperties: ["battery"]))
    }

    @Test(
        "broken files: every problem, each at its line and column",
        arguments: [
            ("source: zigbee\n", ["test.yaml:1:9: source must be zigbee2mqtt or mqtt, not 'zigbee' (did you mean 'zigbee2mqtt'?)"]),
            ("base_topic: x\n", ["test.yaml:1:1: a mapping file needs 'source'"]),
            (
                "source: mqtt\naccessories:\n  - id: a\n    services: [\n",
                ["test.yaml:5:1: not valid YAML: while parsing a flow node did not find expected node content"]
            ),
            ("source: mqtt\nsource: mqtt\n", ["test.yaml:1:1: duplicate key 'source'"]),
            (
                "source: zigbee2mqtt\ndevices:\n  lamp: { servce: outlet, exclude: maybe }\n",
                [
                    "test.yaml:3:11: unknown key 'servce' in device 'lamp' (did you mean 'service'?)",
                    "test.yaml:3:36: device 'lamp' exclude must be true or false, not 'maybe'",
                ]
            ),
            ("source: zigbee2mqtt\naccessories: []\n", ["test.yaml:2:1: 'accessories' belongs in a 'source: mqtt' file"]),
            (
                "source: mqtt\naccessories:\n  - id: Lamp 1\n    services:\n      - type: lightbulb\n        characteristics:\n          \"on\": { state: { topic: a } }\n",
                ["test.yaml:3:9: id 'Lamp 1' must use only a-z, 0-9, _ and - (try 'lamp_1')"]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: lightbulp\n        characteristics: { \"on\": { state: { topic: a } } }\n",
                ["test.yaml:5:15: unknown service type 'lightbulp' (did you mean 'lightbulb'?)"]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: switch\n        characteristics:\n          brightness: { state: { topic: a } }\n",
                ["test.yaml:7:11: switch has no characteristic 'brightness' (it has on, name)"]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: temperature_sensor\n        characteristics:\n          current_temperature:\n            set: { topic: a }\n",
                ["test.yaml:8:13: current_temperature is read-only in HomeKit, so it cannot have 'set'"]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: lightbulb\n        characteristics:\n          brightness:\n            state: { topic: a, scale: { from: [0], to: [0, 100] } }\n",
                ["test.yaml:8:47: brightness state scale 'from' needs two numbers, like [0, 100]"]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: garage_door_opener\n        characteristics:\n          current_door_state:\n            state: { topic: a, map: { OPEN: 0, BROKEN: 9 } }\n",
                [
                    "test.yaml:8:37: current_door_state state map: 'BROKEN' maps to 9, but 9 is not one of the valid values 0 (open), 1 (closed), 2 (opening), 3 (closing), 4 (stopped)"
                ]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: lightbulb\n        characteristics:\n          \"on\":\n            set: { topic: a/+, template: \"{}\" }\n",
                ["test.yaml:8:27: on set topic 'a/+' must not contain wildcards"]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: lightbulb\n        characteristics:\n          \"on\":\n            set: { topic: a, template: \"{}\" }\n",
                ["test.yaml:8:40: on set template must contain {{value}} where the value goes"]
            ),
            (
                "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: switch\n        characteristics: { \"on\": { state: { topic: a } } }\n  - id: x\n    services:\n      - type: switch\n        characteristics: { \"on\": { state: { topic: b } } }\n",
                ["test.yaml:7:9: accessory id 'x' is already used in this file"]
            ),
        ])
    func broken(text: String, expected: [String]) {
        let (set, diagnostics) = load(text)
        #expect(diagnostics == expected)
        #expect(set.files.isEmpty && set.accessories.isEmpty, "a file with problems adds nothing")
    }

    @Test("templates: instances filled from vars; missing and unused vars and unknown templates are errors")
    func templates() throws {
        let template = """
            source: mqtt
            templates:
              plug:
                id: "{{id}}"
                services:
                  - type: outlet
                    characteristics:
                      "on":
                        state: { topic: "stat/{{topic}}/POWER", map: { "ON": true, "OFF": false } }
                        set: { topic: "cmnd/{{topic}}/POWER", template: "{{value}}", map: { "true": "ON", "false": "OFF" } }
            instances:
              - template: plug
                vars: { id: a, topic: tasmota_a }

            """
        let (set, diagnostics) = load(template + "  - template: plug\n    vars: { id: b, topic: tasmota_b }\n")
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(set.accessories.map(\.accessory.id) == ["a", "b"])
        #expect(set.accessories[1].bindings.first?.state?.topic == "stat/tasmota_b/POWER")
        #expect(set.accessories[1].bindings.first?.set?.template == "{{value}}")
        let (_, missing) = load(template + "  - template: plug\n    vars: { id: c }\n")
        #expect(missing == ["test.yaml:14:5: template 'plug' uses {{topic}} but this instance's vars do not give it"])
        let (_, unused) = load(template + "  - template: plug\n    vars: { id: c, topic: t, colour: red }\n")
        #expect(unused == ["test.yaml:15:11: var 'colour' is not used by template 'plug'"])
        let (_, unknown) = load(template + "  - template: plugs\n")
        #expect(unknown == ["test.yaml:14:15: no template named 'plugs' (did you mean 'plug'?)"])
        let (_, clash) = load(template + "  - template: plug\n    vars: { id: a, topic: t }\n")
        #expect(clash == ["test.yaml:4:9: accessory id 'a' is already used in this file (template 'plug', instance at line 14)"])
    }

    @Test("accessory ids must be unique across files")
    func duplicateAcrossFiles() {
        var set = MappingSet()
        let text =
            "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: switch\n        characteristics: { \"on\": { state: { topic: a } } }\n"
        #expect(set.add(file: "one.yaml", text: text).isEmpty)
        #expect(set.add(file: "two.yaml", text: text).map(\.description) == ["two.yaml:3:9: accessory id 'x' is already used in one.yaml"])
    }

    @Test("required characteristics the file leaves out are still there, unknown until set")
    func requiredCharacteristics() throws {
        let (set, _) = load(
            "source: mqtt\naccessories:\n  - id: g\n    services:\n      - type: garage_door_opener\n        characteristics:\n          current_door_state: { state: { topic: a } }\n"
        )
        let service = try #require(set.accessories.first?.accessory["garage_door_opener"])
        #expect(service.characteristics.map(\.name) == ["current_door_state", "target_door_state", "obstruction_detected"])
    }

    @Test("without a category an accessory is what its primary service is (HomeKit's apps show it so); a category given stays")
    func categoryFromService() throws {
        func category(_ service: String, _ given: String = "") -> Accessory.Category? {
            let (set, diagnostics) = load(
                "source: mqtt\naccessories:\n  - id: x\n\(given)    services:\n      - type: \(service)\n"
                    + "        characteristics: { \"on\": { state: { topic: a } } }\n")
            #expect(diagnostics.isEmpty, "\(diagnostics)")
            return set.accessories.first?.accessory.category
        }
        #expect(category("lightbulb") == .lightbulb)
        #expect(category("outlet") == .outlet)
        #expect(category("switch") == .switch)
        #expect(category("switch", "    category: fan\n") == .fan)
        let (sensor, _) = load(
            "source: mqtt\naccessories:\n  - id: t\n    services:\n      - type: temperature_sensor\n"
                + "        characteristics: { current_temperature: { state: { topic: a } } }\n")
        #expect(sensor.accessories.first?.accessory.category == .sensor)
    }
}
