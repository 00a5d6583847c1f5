/// The gateway's own topics under its base topic.
struct Topics: Sendable {
    let base: String

    var accessories: String { "\(base)/accessories" }
    func state(_ accessory: String) -> String { "\(base)/state/\(accessory)" }
    func event(_ accessory: String, _ service: String, _ characteristic: String) -> String {
        "\(base)/event/\(accessory)/\(service)/\(characteristic)"
    }
    /// `homegate/event/room/kitchen`: two levels below event, where characteristic events have three.
    func structureEvent(_ type: String, _ id: String) -> String { "\(base)/event/\(type)/\(id)" }
    var setPrefix: String { "\(base)/set/" }
    var requestPrefix: String { "\(base)/request/" }
    func response(_ command: String) -> String { "\(base)/response/\(command)" }
    var subscriptions: [String] { ["\(base)/set/#", "\(base)/request/#"] }
}
