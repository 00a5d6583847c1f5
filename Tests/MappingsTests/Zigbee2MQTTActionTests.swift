import HomeModel
import Testing

@testable import Mappings

@Suite("Zigbee2MQTT remote actions grouped into buttons")
struct Zigbee2MQTTActionTests {
    typealias Button = Builder.Button

    @Test(
        "each remote's action values become the buttons printed on it",
        arguments: [
            // Aqara WXKG11LM: one button; triple and quadruple presses get a switch each; a release is no press.
            (
                ["single", "double", "triple", "quadruple", "hold", "release"],
                [
                    Button(name: nil, events: ["single": 0, "double": 1, "hold": 2]), Button(name: "triple", events: ["triple": 0]),
                    Button(name: "quadruple", events: ["quadruple": 0]),
                ]
            ),
            // Hue dimmer: short presses come as *_press_release, so the bare press is not a second event.
            (
                [
                    "on_press", "on_press_release", "on_hold", "on_hold_release", "off_press", "off_press_release", "off_hold",
                    "off_hold_release",
                ],
                [
                    Button(name: "on", events: ["on_press_release": 0, "on_hold": 2]),
                    Button(name: "off", events: ["off_press_release": 0, "off_hold": 2]),
                ]
            ),
            // Aqara double rocker: the press word comes first.
            (
                ["single_left", "single_right", "single_both", "double_left", "double_right", "hold_left", "hold_right"],
                [
                    Button(name: "left", events: ["single_left": 0, "double_left": 1, "hold_left": 2]),
                    Button(name: "right", events: ["single_right": 0, "double_right": 1, "hold_right": 2]),
                    Button(name: "both", events: ["single_both": 0]),
                ]
            ),
            // Aqara Opple: numbered buttons.
            (
                ["button_1_single", "button_1_double", "button_1_hold", "button_1_release", "button_2_single", "button_2_triple"],
                [
                    Button(name: "button_1", events: ["button_1_single": 0, "button_1_double": 1, "button_1_hold": 2]),
                    Button(name: "button_2", events: ["button_2_single": 0]),
                    Button(name: "button_2_triple", events: ["button_2_triple": 0]),
                ]
            ),
            // Tuya scene switches: `N_` prefixes; some spell the separator `-`, and `long` is a hold.
            (
                ["1_single", "1_double", "1_hold", "2-single", "2-double", "2-long", "2-release"],
                [
                    Button(name: "1", events: ["1_single": 0, "1_double": 1, "1_hold": 2]),
                    Button(name: "2", events: ["2-single": 0, "2-double": 1, "2-long": 2]),
                ]
            ),
            // IKEA on/off switch: holding a side dims, so it is that button's long press.
            (
                ["on", "off", "brightness_move_up", "brightness_move_down", "brightness_stop"],
                [
                    Button(name: "on", events: ["on": 0, "brightness_move_up": 2]),
                    Button(name: "off", events: ["off": 0, "brightness_move_down": 2]),
                ]
            ),
            // IKEA remote: *_click presses; releases only.
            (
                ["toggle", "arrow_left_click", "arrow_left_hold", "arrow_left_release"],
                [
                    Button(name: "toggle", events: ["toggle": 0]),
                    Button(name: "arrow_left", events: ["arrow_left_click": 0, "arrow_left_hold": 2]),
                ]
            ),
            (["release", "", "stop"], []),
            // Insta and Ubisys: `recall_*_e1` stands for one value per scene, so it names no button; `none` is no press.
            (
                ["on_e1", "recall_*_e1", "brightness_move_*_e1", "none", "off_e1"],
                [Button(name: "on_e1", events: ["on_e1": 0]), Button(name: "off_e1", events: ["off_e1": 0])]
            ),
        ])
    func buttons(values: [String], expected: [Button]) {
        #expect(Builder.buttons(from: values) == expected)
    }

    @Test("every button is numbered under a service label, one button too")
    func labels() throws {
        let remote = try Zigbee2MQTTDevicesTests.mapping("remote").accessory
        let indices = remote.services.compactMap { $0["service_label_index"]?.value }
        #expect(indices == [.int(1), .int(2), .int(3), .int(4)])
        #expect(remote["service_label"]?["service_label_namespace"]?.value == .int(1))
        #expect(remote.services.filter(\.isPrimary).map(\.id) == ["stateless_programmable_switch_on"])
        let button = try Zigbee2MQTTDevicesTests.mapping("button").accessory
        #expect(button["service_label"]?["service_label_namespace"]?.value == .int(1))
        #expect(button["stateless_programmable_switch"]?["service_label_index"]?.value == .int(1))
    }
}
