import HomeModel
import JSON
import Testing

@testable import Mappings

/// Problems caught when the file is read, not at the first message.
@Suite("Mapping files: checks at load time")
struct MappingFileValidationTests {
    func load(_ text: String) -> [String] {
        var set = MappingSet()
        return set.add(file: "t.yaml", text: text).map(\.description)
    }

    /// One characteristic of one service, as an mqtt file.
    func characteristic(_ service: String, _ yaml: String) -> String {
        "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: \(service)\n        characteristics:\n" + yaml
    }

    @Test(
        "transforms that can never work are errors at their key",
        arguments: [
            (
                "lightbulb", "          \"on\":\n            state: { topic: s, scale: { from: [0, 1], to: [1, 0] }, round: 0 }\n",
                [
                    "t.yaml:8:32: on state scale needs a numeric characteristic; on is bool",
                    "t.yaml:8:69: on state round needs a numeric characteristic; on is bool",
                ]
            ),
            (
                "lightbulb", "          active_transition_count:\n            state: { topic: s, invert: true }\n",
                [
                    "t.yaml:8:32: active_transition_count state invert needs a minimum and a maximum to mirror within; active_transition_count has none (give it 'min' and 'max')"
                ]
            ),
            (
                "lightbulb", "          brightness:\n            set: { topic: s, unit: fahrenheit }\n",
                ["t.yaml:8:30: brightness set unit converts temperatures; brightness is not in Celsius"]
            ),
            (
                "lightbulb", "          name:\n            state: { topic: s, invert: true }\n",
                ["t.yaml:8:32: name state invert works on bools and numbers; name is string"]
            ),
            (
                "garage_door_opener", "          target_door_state:\n            set: { topic: s, map: { 0: OPEN, 2: CLOSE } }\n",
                [
                    "t.yaml:8:46: target_door_state set map: '2' is not a value target_door_state can take: 2 is not one of the valid values 0 (open), 1 (closed)"
                ]
            ),
            (
                "garage_door_opener", "          current_door_state:\n            state: { topic: s, map: { OPEN: 0 }, default: 7 }\n",
                [
                    "t.yaml:8:59: current_door_state state default 7: 7 is not one of the valid values 0 (open), 1 (closed), 2 (opening), 3 (closing), 4 (stopped)"
                ]
            ),
            (
                "lightbulb", "          \"on\":\n            set: { topic: s, map: { \"true\": \"1\", maybe: \"2\" } }\n",
                [
                    "t.yaml:8:50: on set map: 'maybe' is not a value on can take: \"maybe\" is not a bool (use map to say which values mean true)"
                ]
            ),
        ])
    func transforms(service: String, yaml: String, expected: [String]) {
        #expect(load(characteristic(service, yaml)) == expected)
    }

    @Test("invert mirrors within valid values when there is no minimum and maximum")
    func invertValidValues() throws {
        var set = MappingSet()
        let diagnostics = set.add(
            file: "t.yaml", text: characteristic("fanv2", "          active:\n            state: { topic: s, invert: true }\n"))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let accessory = try #require(set.accessories.first)
        let binding = try #require(accessory.bindings.first)
        let active = try #require(accessory.accessory["fanv2"]?["active"])
        #expect(try binding.state!.value(from: Array("1".utf8), for: active).get() == .int(0))
    }

    @Test("a zigbee2mqtt file may name its bridge; two files for one bridge are an error")
    func bridges() throws {
        var set = MappingSet()
        #expect(set.add(file: "a.yaml", text: "source: zigbee2mqtt\nname: Upstairs\n").isEmpty)
        #expect(set.zigbee2mqtt.first?.name == "Upstairs")
        #expect(
            set.add(file: "b.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").map(\.description)
                == ["b.yaml:2:13: base_topic 'zigbee2mqtt' is already used by a.yaml; one file per bridge"])
        #expect(
            set.add(file: "c.yaml", text: "source: zigbee2mqtt\n").map(\.description)
                == ["c.yaml:1:9: base_topic 'zigbee2mqtt' is already used by a.yaml; one file per bridge"])
        #expect(set.add(file: "d.yaml", text: "source: zigbee2mqtt\nbase_topic: z2m-garden\n").isEmpty)
        #expect(load("source: mqtt\nname: x\n") == ["t.yaml:2:1: 'name' belongs in a 'source: zigbee2mqtt' file"])
    }

    @Test("IEEE addresses work unquoted; a malformed one is an error")
    func ieeeAddresses() throws {
        var set = MappingSet()
        #expect(set.add(file: "t.yaml", text: "source: zigbee2mqtt\ndevices:\n  0x00158d0001a2b3c4: { exclude: true }\n").isEmpty)
        #expect(set.zigbee2mqtt.first?.devices["0x00158d0001a2b3c4"]?.exclude == true)
        #expect(
            load("source: zigbee2mqtt\ndevices:\n  0x00158d0001a2b3: { exclude: true }\n")
                == ["t.yaml:3:3: '0x00158d0001a2b3' looks like an IEEE address but is not 0x followed by 16 hex digits"])
    }

    @Test(
        "wrong types say what was expected",
        arguments: [
            ("source: zigbee2mqtt\ndevices: [a, b]\n", ["t.yaml:2:10: devices must map friendly names or IEEE addresses to overrides"]),
            (
                "source: zigbee2mqtt\ndevices:\n  lamp: { exclude_properties: battery }\n",
                ["t.yaml:3:31: device 'lamp' exclude_properties must be a list, like [battery, linkquality]"]
            ),
            (
                "source: zigbee2mqtt\ndevices:\n  lamp: { service: outlte }\n",
                [
                    "t.yaml:3:20: device 'lamp' service must be one of outlet, lightbulb, switch, motion, occupancy, not 'outlte' (did you mean 'outlet'?)"
                ]
            ),
            (
                "source: zigbee2mqtt\ndevices:\n  lamp: { settings: al }\n",
                ["t.yaml:3:21: device 'lamp' settings must be one of default, all, none, not 'al' (did you mean 'all'?)"]
            ),
            (
                "source: zigbee2mqtt\ndevices:\n  lamp: { include_properties: [device_temprature] }\n",
                [
                    "t.yaml:3:31: device 'lamp' include_properties: 'device_temprature' is not an expose that is left out by default (those are device_temperature) (did you mean 'device_temperature'?)"
                ]
            ),
            ("source: mqtt\naccessories: { id: x }\n", ["t.yaml:2:14: accessories must be a list"]),
            ("source: mqtt\naccessories:\n  - id: x\n    services: []\n", ["t.yaml:4:15: services must be a non-empty list"]),
            (
                "source: mqtt\naccessories:\n  - id: x\n    nmae: X\n    services: [{ type: switch, characteristics: { \"on\": { state: { topic: a } } } }]\n",
                ["t.yaml:4:5: unknown key 'nmae' in an accessory (did you mean 'name'?)"]
            ),
            (
                "source: mqtt\naccessories:\n  - name: X\n",
                ["t.yaml:3:5: an accessory needs 'id'", "t.yaml:3:5: an accessory needs 'services'"]
            ),
        ])
    func wrongTypes(text: String, expected: [String]) {
        #expect(load(text) == expected)
    }

    @Test("every problem in a file is reported at once, in file order")
    func everyProblem() {
        let diagnostics = load(
            """
            source: mqtt
            accessories:
              - id: x
                room: [a]
                services:
                  - type: switch
                    characteristics:
                      "on": { state: { topic: a, round: 9 } }
                      brightness: { state: { topic: b } }
                  - type: lightbulp
                    characteristics: { "on": { state: { topic: c } } }
            """)
        #expect(
            diagnostics == [
                "t.yaml:4:11: room must be text",
                "t.yaml:8:38: on state round needs a numeric characteristic; on is bool",
                "t.yaml:8:45: on state round must be between 0 and 6, not 9",
                "t.yaml:9:11: switch has no characteristic 'brightness' (it has on, name)",
                "t.yaml:10:15: unknown service type 'lightbulp' (did you mean 'lightbulb'?)",
            ])
    }
}

@Suite("Mapping files: topics follow MQTT's rules at load time")
struct MappingTopicValidationTests {
    @Test(
        "a set topic with a NUL, control characters or wildcards is an error at its position, quoted safely",
        arguments: [
            (
                #"cmnd/plug\0/../other"#,
                "t.yaml:8:27: on set topic \"cmnd/plug\\0/../other\" contains a NUL character, which would cut the topic short"
            ),
            (#"cmnd/plug\a"#, "t.yaml:8:27: on set topic \"cmnd/plug\\u{07}\" contains control characters or is not valid UTF-8"),
            ("cmnd/+/POWER", "t.yaml:8:27: on set topic 'cmnd/+/POWER' must not contain wildcards"),
        ])
    func badTopics(topic: String, expected: String) {
        var set = MappingSet()
        let text =
            "source: mqtt\naccessories:\n  - id: x\n    services:\n      - type: outlet\n        characteristics:\n"
            + "          \"on\":\n            set: { topic: \"\(topic)\" }\n"
        let errors = set.add(file: "t.yaml", text: text).map(\.description)
        #expect(errors == [expected])
    }
}

@Suite("Mapping files: size limits, checked before anything is expanded", .timeLimit(.minutes(1)))
struct MappingFileLimitTests {
    /// Nine levels of nine aliases under a template one instance uses: 43 million values from 700 bytes.
    static let aliasBomb: String = {
        var lines = [
            "source: mqtt", "templates:", "  plug:", "    id: \"plug_{{n}}\"", "    manufacturer:",
            "      - &l0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]",
        ]
        for level in 1...8 {
            lines.append("      - &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ",") + "]")
        }
        lines += [
            "    services: [{type: outlet, characteristics: {\"on\": {state: {topic: \"x/{{n}}\"}}}}]", "instances:",
            "  - {template: plug, vars: {n: '1'}}",
        ]
        return lines.joined(separator: "\n") + "\n"
    }()

    @Test("a 700-byte file whose aliases expand to 43 million values is refused at once, with why")
    func aliasBomb() {
        #expect(Self.aliasBomb.utf8.count < 800)
        var set = MappingSet()
        let errors = set.add(file: "bomb.yaml", text: Self.aliasBomb).map(\.description)
        #expect(
            errors == [
                "bomb.yaml:1:1: the file holds more than 100,000 values once its aliases (*name) are expanded; "
                    + "refused before reading it further (at most 100,000)"
            ])
        #expect(set.accessories.isEmpty)
    }

    @Test("aliases within the limit still work")
    func modestAliases() {
        var set = MappingSet()
        let text =
            "source: mqtt\naccessories:\n  - id: a\n    services: &s [{type: outlet, characteristics: {\"on\": {state: {topic: a}}}}]\n"
            + "  - id: b\n    services: *s\n"
        #expect(set.add(file: "ok.yaml", text: text).isEmpty)
        #expect(set.accessories.count == 2)
    }
}

@Suite("Mapping files: a file that is not one is said so once, never echoed")
struct NotAMappingFileTests {
    @Test("a shadow-like file in the folder: one line saying it is not a mapping file, and none of its text")
    func shadowFile() {
        var set = MappingSet()
        let text =
            "root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\nsecretuser:$6$abcdefgh$longhashvalue1234567890:20228:0:99999:7:::\n"
        let errors = set.add(file: "x.yaml", text: text).map(\.description)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("x.yaml:1:1: not a mapping file: it has none of a mapping file's keys") == true, "\(errors)")
        #expect(!errors.joined().contains("root") && !errors.joined().contains("longhash"))
    }

    @Test("an unknown key in a real mapping file is quoted by a short prefix")
    func longUnknownKey() {
        var set = MappingSet()
        let errors = set.add(file: "t.yaml", text: "source: zigbee2mqtt\n" + String(repeating: "k", count: 200) + ": 1\n").map(
            \.description)
        #expect(errors == ["t.yaml:2:1: unknown key 'kkkkkkkkkkkkkkkkkkkkkkk…' in a mapping file"])
    }
}
