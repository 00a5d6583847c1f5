import GatewayCore
import Testing

@testable import Gateway

/// What homegate keeps of its own MQTT messages while the broker is not up yet (`HeldMessages`);
/// `StartBeforeBrokerTests` runs the whole of it against a broker started late.
@Suite("Messages held until the broker connection: each retained topic's newest, the first of the rest up to the limit")
struct HeldMessagesTests {
    static func message(_ topic: String, _ text: String, retain: Bool = false) -> Outgoing {
        Outgoing(topic, Array(text.utf8), retain: retain)
    }

    @Test("a retained topic keeps its newest message in its first place; events past the limit are counted and not kept")
    func limit() {
        var held = HeldMessages(limit: 2)
        #expect(held.isEmpty)
        held.hold(Self.message("homegate/accessories", "old tree", retain: true))
        for n in 1...5 { held.hold(Self.message("homegate/event/bulb/lightbulb/on", "event \(n)")) }
        held.hold(Self.message("homegate/state/bulb", "state", retain: true))
        held.hold(Self.message("homegate/accessories", "new tree", retain: true))
        #expect(!held.isEmpty)

        let (messages, dropped) = held.release()
        #expect(
            messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["new tree", "event 1", "event 2", "state"],
            "retained messages do not count against the limit, nor are they dropped")
        #expect(dropped == 3)
        #expect(held.isEmpty && held.release().messages.isEmpty, "released once")
    }

    @Test("only dropped messages still count as something to tell")
    func onlyDropped() {
        var held = HeldMessages(limit: 0)
        held.hold(Self.message("homegate/response/accessories", "reply"))
        #expect(!held.isEmpty && held.messages.isEmpty)
        #expect(held.release().dropped == 1)
    }
}
