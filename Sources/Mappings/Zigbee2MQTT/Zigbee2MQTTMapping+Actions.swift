import HomeModel
import JSON

extension Builder {
    /// A remote's `action` values as stateless programmable switches, one per button:
    /// `single`/`double`/`hold` on one switch; `on_press_release`, `up_hold`, ... on a switch per button.
    mutating func addActions() {
        guard let action = generic("action"), let key = action.property, !action.values.isEmpty else { return }
        let buttons = Self.buttons(from: action.values)
        guard !buttons.isEmpty else { return }
        var events: [String: (service: String, event: Int)] = [:]
        for (index, button) in buttons.enumerated() {
            let valid = Set(button.events.values).sorted()
            let characteristics = [
                Characteristic(.programmable_switch_event, validValues: valid),
                Characteristic(.service_label_index, value: .int(index + 1)),
            ]
            let service = addService(.stateless_programmable_switch, endpoint: button.name, primary: index == 0 && category == nil, characteristics)
            for (value, event) in button.events { events[value] = (service, event) }
        }
        for service in Set(events.values.map(\.service)) {
            let map = events.filter { $0.value.service == service }.mapValues(\.event)
            mapping.read(key, into: service, "programmable_switch_event", .action(map))
        }
        use(action)
        category = category ?? .programmable_switch
    }

    struct Button {
        var name: String?
        var events: [String: Int]
    }

    /// Groups action values into buttons. Releases and stops say nothing HomeKit can show and are dropped.
    static func buttons(from values: [String]) -> [Button] {
        let plain: [String: Int] = ["single": 0, "double": 1, "hold": 2, "long": 2]
        let suffixes: [(String, Int?)] = [
            ("_press_release", 0), ("_hold_release", nil), ("_long_release", nil), ("_release", nil), ("_single", 0),
            ("_double", 1), ("_hold", 2), ("_long", 2), ("_press", 0), ("_stop", nil),
        ]
        var order: [String?] = []
        var buttons: [String?: [String: Int]] = [:]
        func add(_ button: String?, _ value: String, _ event: Int) {
            if buttons[button] == nil { order.append(button) }
            buttons[button, default: [:]][value] = event
        }
        for value in values {
            if let event = plain[value] { add(nil, value, event); continue }
            if ["triple", "quadruple", "release", "many"].contains(value) { continue }
            if let (suffix, event) = suffixes.first(where: { value.hasSuffix($0.0) && value.count > $0.0.count }) {
                let button = String(value.dropLast(suffix.count))
                guard let event else { continue }
                // A button with press_release reports a short press there, not on the bare press.
                if suffix == "_press", values.contains(button + "_press_release") { continue }
                add(button, value, event)
                continue
            }
            add(value, value, 0)  // `on`, `off`, `toggle`: each a button of its own
        }
        return order.map { Button(name: $0, events: buttons[$0] ?? [:]) }
    }
}
