import HomeModel
import JSON

extension Builder {
    /// A remote's `action` values as stateless programmable switches, one per button:
    /// `single`/`double`/`hold` on one switch; `on_press_release`, `single_left`, `button_1_hold`, ...
    /// on a switch per button, numbered under a service label as HAP wants for several buttons.
    mutating func addActions() {
        guard let action = generic("action"), action.type == "enum", let key = action.property else { return }
        let buttons = Self.buttons(from: action.values)
        guard !buttons.isEmpty else { return }
        let labelled = buttons.count > 1
        for (index, button) in buttons.enumerated() {
            var characteristics = [Characteristic(.programmable_switch_event, validValues: Set(button.events.values).sorted())]
            if labelled { characteristics.append(Characteristic(.service_label_index, value: .int(index + 1))) }
            let service = addService(.stateless_programmable_switch, endpoint: button.name, primary: index == 0 && category == nil, characteristics)
            mapping.read(key, into: service, "programmable_switch_event", .action(button.events))
        }
        if labelled { _ = addService(.service_label, [Characteristic(.service_label_namespace, value: .int(1))]) }
        use(action)
        category = category ?? .programmable_switch
    }

    struct Button: Equatable {
        var name: String?
        /// Action value → programmable_switch_event: 0 single, 1 double, 2 long press.
        var events: [String: Int]
    }

    /// Words Zigbee2MQTT puts before or after a button name. nil: a word HomeKit has no event for
    /// (releases, stops, triple presses); the value is dropped but still names its button.
    static let pressWords: [(word: String, event: Int?)] = [
        ("press_release", 0), ("hold_release", nil), ("long_release", nil), ("release", nil), ("single", 0), ("click", 0),
        ("double", 1), ("triple", nil), ("quadruple", nil), ("hold", 2), ("long", 2), ("press", 0), ("stop", nil),
    ]

    /// Groups action values into buttons, in the order the device lists them.
    static func buttons(from values: [String]) -> [Button] {
        var order: [String?] = []
        var events: [String?: [String: Int]] = [:]
        func add(_ button: String?, _ value: String, _ event: Int?) {
            if !order.contains(button) { order.append(button) }
            if let event { events[button, default: [:]][value] = event }
        }
        let all = Set(values)
        for value in values where !value.isEmpty {
            if let (_, event) = pressWords.first(where: { $0.word == value }) {
                add(nil, value, event)  // `single`, `double`, `hold`: the one button
            } else if let (word, event) = pressWords.first(where: { value.hasSuffix("_" + $0.word) && value.count > $0.word.count + 1 }) {
                let button = String(value.dropLast(word.count + 1))
                // A button with press_release reports its short press there, not on the bare press.
                add(button, value, word == "press" && all.contains(button + "_press_release") ? nil : event)
            } else if let (word, event) = pressWords.first(where: { value.hasPrefix($0.word + "_") && value.count > $0.word.count + 1 }) {
                add(String(value.dropFirst(word.count + 1)), value, event)  // Aqara: `single_left`, `hold_both`
            } else if value == "brightness_move_up", all.contains("on") {
                add("on", value, 2)  // IKEA on/off switch: holding "on" dims up
            } else if value == "brightness_move_down", all.contains("off") {
                add("off", value, 2)
            } else {
                add(value, value, 0)  // `on`, `off`, `toggle`, `shake`: each a button of its own
            }
        }
        return order.compactMap { name in events[name].map { Button(name: name, events: $0) } }
    }
}
