import HomeModel
@testable import Mappings
import Testing

@Suite("Zigbee2MQTT remote actions grouped into buttons")
struct Zigbee2MQTTActionTests {
    typealias Button = Builder.Button

    @Test("each remote's action values become the buttons printed on it", arguments: [
        // Aqara WXKG11LM: one button; triple, quadruple and release have no HomeKit event.
        (["single", "double", "triple", "quadruple", "hold", "release"],
         [Button(name: nil, events: ["single": 0, "double": 1, "hold": 2])]),
        // Hue dimmer: short presses come as *_press_release, so the bare press is not a second event.
        (["on_press", "on_press_release", "on_hold", "on_hold_release", "off_press", "off_press_release", "off_hold", "off_hold_release"],
         [Button(name: "on", events: ["on_press_release": 0, "on_hold": 2]), Button(name: "off", events: ["off_press_release": 0, "off_hold": 2])]),
        // Aqara double rocker: the press word comes first.
        (["single_left", "single_right", "single_both", "double_left", "double_right", "hold_left", "hold_right"],
         [Button(name: "left", events: ["single_left": 0, "double_left": 1, "hold_left": 2]),
          Button(name: "right", events: ["single_right": 0, "double_right": 1, "hold_right": 2]),
          Button(name: "both", events: ["single_both": 0])]),
        // Aqara Opple: numbered buttons.
        (["button_1_single", "button_1_double", "button_1_hold", "button_1_release", "button_2_single", "button_2_triple"],
         [Button(name: "button_1", events: ["button_1_single": 0, "button_1_double": 1, "button_1_hold": 2]),
          Button(name: "button_2", events: ["button_2_single": 0])]),
        // IKEA on/off switch: holding a side dims, so it is that button's long press.
        (["on", "off", "brightness_move_up", "brightness_move_down", "brightness_stop"],
         [Button(name: "on", events: ["on": 0, "brightness_move_up": 2]), Button(name: "off", events: ["off": 0, "brightness_move_down": 2])]),
        // IKEA remote: *_click presses; releases only.
        (["toggle", "arrow_left_click", "arrow_left_hold", "arrow_left_release"],
         [Button(name: "toggle", events: ["toggle": 0]), Button(name: "arrow_left", events: ["arrow_left_click": 0, "arrow_left_hold": 2])]),
        (["release", "", "stop"], []),
    ])
    func buttons(values: [String], expected: [Button]) {
        #expect(Builder.buttons(from: values) == expected)
    }

    @Test("several buttons are numbered under a service label; one button needs none")
    func labels() throws {
        let remote = try Zigbee2MQTTDevicesTests.mapping("remote").accessory
        let indices = remote.services.compactMap { $0["service_label_index"]?.value }
        #expect(indices == [.int(1), .int(2), .int(3), .int(4)])
        #expect(remote["service_label"]?["service_label_namespace"]?.value == .int(1))
        #expect(remote.services.filter(\.isPrimary).map(\.id) == ["stateless_programmable_switch_on"])
        let button = try Zigbee2MQTTDevicesTests.mapping("button").accessory
        #expect(button["service_label"] == nil)
    }
}
