import HomeModel
import JSON

extension Builder {
    /// A remote's `action` values as stateless programmable switches, one per button:
    /// `single`/`double`/`hold` on one switch; `on_press_release`, `single_left`, `button_1_hold`, ...
    /// on a switch per button. Triple and quadruple presses have no HomeKit event: each gets a switch
    /// of its own next to its button (`left_triple`). Every switch is numbered under a service label.
    mutating func addActions() {
        guard let action = generic("action"), action.type == "enum", let key = action.property else { return }
        let buttons = Self.buttons(from: action.values)
        guard !buttons.isEmpty else { return }
        for (index, button) in buttons.enumerated() {
            let characteristics = [
                Characteristic(.programmable_switch_event, validValues: Set(button.events.values).sorted()),
                Characteristic(.service_label_index, value: .int(index + 1)),
            ]
            let service = addService(
                .stateless_programmable_switch, endpoint: button.name, primary: index == 0 && category == nil, characteristics)
            mapping.read(key, into: service, "programmable_switch_event", .action(button.events))
        }
        _ = addService(.service_label, [Characteristic(.service_label_namespace, value: .int(1))])
        use(action)
        category = category ?? .programmable_switch
    }

    struct Button: Equatable {
        var name: String?
        /// Action value → programmable_switch_event: 0 single, 1 double, 2 long press.
        var events: [String: Int]
    }

    /// Words Zigbee2MQTT puts before or after a button name, with `_` or `-` between. `event` nil:
    /// a word HomeKit has no event for (releases, stops); the value is dropped but still names its
    /// button. `extra`: a press HomeKit has no event for, given a switch of its own (`triple`).
    static let pressWords: [(word: String, event: Int?, extra: Bool)] = [
        ("press_release", 0, false), ("hold_release", nil, false), ("long_release", nil, false), ("release", nil, false),
        ("single", 0, false), ("click", 0, false), ("double", 1, false), ("triple", 0, true), ("quadruple", 0, true),
        ("hold", 2, false), ("long", 2, false), ("press", 0, false), ("stop", nil, false),
    ]

    /// A cover remote's `stop` is a press of its own, not the release of a held button: `stop`
    /// beside `open` and `close` (IKEA E1766), `stop_cover` beside `open_cover` (Insta), `stop_3`
    /// beside `open_3` (a cover endpoint of an Aeotec). A dimmer's `stop` (beside `up` and `down`
    /// held, or `brightness_move_up`) and `brightness_stop` end a hold.
    static func isCoverStop(_ plain: String, among spelled: Set<String>) -> Bool {
        guard plain == "stop" || plain.hasPrefix("stop_") else { return false }
        let suffix = plain.dropFirst("stop".count)
        return spelled.contains("open" + suffix) || spelled.contains("close" + suffix)
    }

    /// Groups action values into buttons, in the order the device lists them.
    static func buttons(from values: [String]) -> [Button] {
        var order: [String?] = []
        var events: [String?: [String: Int]] = [:]
        func add(_ button: String?, _ value: String, _ event: Int?) {
            if !order.contains(button) { order.append(button) }
            if let event { events[button, default: [:]][value] = event }
        }
        func add(_ button: String?, _ value: String, _ word: (word: String, event: Int?, extra: Bool)) {
            if word.extra {
                add(button.map { "\($0)_\(word.word)" } ?? word.word, value, word.event)
            } else {
                add(button, value, word.event)
            }
        }
        // `1-single` and `1_single` are one spelling; the value itself stays the event's key.
        let spelled = Set(values.map { String($0.map { $0 == "-" ? "_" : $0 }) })
        // `recall_*_e1` stands for a family of values (one per scene or region): no fixed button to
        // show. `none` is the absence of a press.
        for value in values where !value.isEmpty && !value.contains("*") && value != "none" {
            let plain = String(value.map { $0 == "-" ? "_" : $0 })
            if isCoverStop(plain, among: spelled) {
                add(plain, value, 0)  // a cover remote's stop button
            } else if let word = pressWords.first(where: { $0.word == plain }) {
                add(nil, value, word)  // `single`, `double`, `hold`: the one button
            } else if let word = pressWords.first(where: { plain.hasSuffix("_" + $0.word) && plain.count > $0.word.count + 1 }) {
                let button = String(plain.dropLast(word.word.count + 1))
                // A button with press_release reports its short press there, not on the bare press.
                if word.word == "press", spelled.contains(button + "_press_release") {
                    add(button, value, nil as Int?)
                } else {
                    add(button, value, word)
                }
            } else if let word = pressWords.first(where: { plain.hasPrefix($0.word + "_") && plain.count > $0.word.count + 1 }) {
                add(String(plain.dropFirst(word.word.count + 1)), value, word)  // Aqara: `single_left`, `hold_both`
            } else if plain == "brightness_move_up", spelled.contains("on") {
                add("on", value, 2)  // IKEA on/off switch: holding "on" dims up
            } else if plain == "brightness_move_down", spelled.contains("off") {
                add("off", value, 2)
            } else {
                add(plain, value, 0)  // `on`, `off`, `toggle`, `shake`: each a button of its own
            }
        }
        return order.compactMap { name in events[name].map { Button(name: name, events: $0) } }
    }
}
