import HomeModel
import Testing

import MatterBridge

@Suite("which characteristics of a service the Matter bridge carries")
struct BridgedCharacteristicsTests {
    @Test("a lamp: its device type, and what its clusters report")
    func lamp() throws {
        let bridged = try #require(BridgedCharacteristics(LayoutTests.lamp.services[0]))
        #expect(bridged.deviceType == 0x010C)
        #expect(bridged.carried.isSuperset(of: ["on", "brightness", "color_temperature"]))
    }

    @Test("a characteristic only an invoke writes counts: a blind's stop, when the device takes it")
    func commandOnly() throws {
        var hold = Characteristic(.hold_position)
        let blind = Service(
            id: "blind", type: .window_covering,
            characteristics: [Characteristic(.current_position), Characteristic(.target_position), Characteristic(.position_state), hold])
        #expect(try #require(BridgedCharacteristics(blind)).carried.isSuperset(of: ["current_position", "target_position", "hold_position"]))
        hold.isWritable = false
        var fixed = blind
        fixed.characteristics[3] = hold
        #expect(try #require(BridgedCharacteristics(fixed)).carried.contains("hold_position") == false)
    }

    @Test("a thermostat that never reported: its setpoint and mode are carried all the same")
    func unreported() throws {
        let thermostat = Service(
            id: "thermostat", type: .thermostat,
            characteristics: [
                Characteristic(.current_temperature), Characteristic(.target_temperature, minValue: 5, maxValue: 30),
                Characteristic(.target_heating_cooling_state, validValues: [0, 1]), Characteristic(.current_heating_cooling_state),
            ])
        let bridged = try #require(BridgedCharacteristics(thermostat))
        #expect(bridged.deviceType == 0x0301)
        #expect(bridged.carried.isSuperset(of: ["current_temperature", "target_temperature", "target_heating_cooling_state"]))
    }

    @Test("a button's presses are carried as events; its label index is not; a service with no device type has none")
    func events() throws {
        let button = Service(
            id: "button", type: .stateless_programmable_switch,
            characteristics: [Characteristic(.programmable_switch_event), Characteristic(.service_label_index, value: .int(1))])
        let bridged = try #require(BridgedCharacteristics(button))
        #expect(bridged.carried == ["programmable_switch_event"])
        #expect(BridgedCharacteristics(Service(id: "label", type: .service_label, characteristics: [])) == nil)
    }

    @Test("a battery service is Power Source: its level and low-battery state are carried, its charging state is not")
    func battery() throws {
        let battery = Service(
            id: "battery", type: .battery_service,
            characteristics: [Characteristic(.battery_level), Characteristic(.status_low_battery), Characteristic(.charging_state)])
        let bridged = try #require(BridgedCharacteristics(battery))
        #expect(bridged.deviceType == 0x0011)
        #expect(bridged.carried == ["battery_level", "status_low_battery"])
    }
}
