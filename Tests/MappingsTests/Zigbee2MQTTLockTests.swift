import HomeModel
import JSON
import Mappings
import Testing

@Suite("Locks")
struct Zigbee2MQTTLockTests {
    /// A lock expose as Zigbee2MQTT's `e.lock()` builds it.
    static let lock: JSONValue = [
        "ieee_address": "0x0011", "friendly_name": "front_door", "type": "EndDevice", "supported": true, "interview_completed": true,
        "definition": ["model": "YRD226HA2619", "vendor": "Yale", "exposes": [
            ["type": "lock", "features": [
                ["type": "binary", "name": "state", "property": "state", "access": 7, "value_on": "LOCK", "value_off": "UNLOCK"],
                ["type": "enum", "name": "lock_state", "property": "lock_state", "access": 1, "values": ["not_fully_locked", "locked", "unlocked"]],
            ]],
            ["type": "numeric", "name": "battery", "property": "battery", "access": 5, "value_min": 0, "value_max": 100],
        ]],
    ]

    @Test("target from state, current from lock_state including jammed, writes as LOCK/UNLOCK")
    func lockStates() throws {
        let mapping = try Zigbee2MQTTMapping.build(Zigbee2MQTTDevice(json: Self.lock)!).get()
        #expect(mapping.accessory.category == .door_lock)
        let decoded = mapping.decode(["state": "LOCK", "lock_state": "not_fully_locked"]).updates
        #expect(Set(decoded) == [
            .init(service: "lock_mechanism", characteristic: "lock_target_state", value: .int(1)),
            .init(service: "lock_mechanism", characteristic: "lock_current_state", value: .int(2)),
        ])
        for (state, expected) in [("locked", 1), ("unlocked", 0)] {
            #expect(mapping.decode(["lock_state": .string(state)]).updates.first?.value == .int(expected))
        }
        #expect(try mapping.encode([.init(service: "lock_mechanism", characteristic: "lock_target_state", value: .int(0))]).serialized() == #"{"state":"UNLOCK"}"#)
        let out = try mapping.encode([.init(service: "lock_mechanism", characteristic: "lock_target_state", value: .int(1))])
        #expect(mapping.decode(out).updates.first?.value == .int(1))
    }
}
