import Mappings

extension HomeCore {
    /// What placing a bridge's devices gathers, for `rebuild` to act on once all are placed.
    struct Placing {
        var seen: Set<String> = []
        var byName: [String: String] = [:]
        var skipped: [SkippedDevice] = []
        var rules: RuleSets = [:]
        /// The devices placed, as they are now (`Bridge.placed`).
        var placed: [String: Zigbee2MQTTDevice] = [:]
        /// What is not shown, with the devices it is not shown for, in the order first met.
        private(set) var notShown: [(text: String, devices: [String])] = []
        private var notShownIndex: [String: Int] = [:]

        mutating func add(notShown text: String, device: String) {
            if let index = notShownIndex[text] { return notShown[index].devices.append(device) }
            notShownIndex[text] = notShown.count
            notShown.append((text, [device]))
        }
    }

    /// `a`, `a and b`, `a, b and c`; past three names, `a, b, c and 77 more`.
    static func listed(_ names: [String]) -> String {
        if names.count < 2 { return names.first ?? "" }
        if names.count > 3 { return names.prefix(3).joined(separator: ", ") + " and \(names.count - 3) more" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}
