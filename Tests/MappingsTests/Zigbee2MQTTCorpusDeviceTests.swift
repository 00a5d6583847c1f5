import HomeModel
import JSON
import Testing

@testable import Mappings

/// Devices of the corpus looked at one by one, as their converters define them: the entries of
/// `Fixtures/corpus/devices.json` (zigbee-herdsman-converters at df72005, `src/devices/ikea.ts` and
/// `src/devices/lumi.ts`; Fixtures/corpus/README.md), with state messages in the keys and values
/// those definitions publish.
@Suite("Corpus devices one by one: what their exposes offer reaches HomeKit")
struct Zigbee2MQTTCorpusDeviceTests {
    static func mapping(model: String) throws -> Zigbee2MQTTMapping {
        let device = try #require(Zigbee2MQTTCorpusTests.devices.first { $0.model == model }, "\(model) is not in the corpus")
        return try Zigbee2MQTTMapping.build(device).get()
    }

    func values(_ mapping: Zigbee2MQTTMapping, _ payload: JSONValue) -> [String: CharacteristicValue] {
        let decoded = mapping.decode(payload)
        #expect(decoded.errors.isEmpty, "\(decoded.errors)")
        return Dictionary(decoded.updates.map { ("\($0.service)/\($0.characteristic)", $0.value) }, uniquingKeysWith: { _, b in b })
    }

    @Test("IKEA E1766 open/close remote: open, close and stop are each a button, and pressing stop is a press")
    func openCloseRemote() throws {
        let remote = try Self.mapping(model: "E1766")
        let buttons = remote.accessory.services.filter { $0.type == .stateless_programmable_switch }.map(\.id)
        #expect(
            buttons == [
                "stateless_programmable_switch_open", "stateless_programmable_switch_close", "stateless_programmable_switch_stop",
            ])
        #expect(remote.accessory["stateless_programmable_switch_stop"]?["service_label_index"]?.value == .int(3))
        let stop = values(remote, ["action": "stop", "battery": 87]).filter { $0.key.hasSuffix("programmable_switch_event") }
        #expect(stop == ["stateless_programmable_switch_stop/programmable_switch_event": .int(0)])
        #expect(values(remote, ["action": "open"])["stateless_programmable_switch_open/programmable_switch_event"] == .int(0))
    }

    @Test("a dimmer's stop still ends a hold; a cover endpoint's stop_3 and an Insta's stop_cover are buttons")
    func stopIsAButtonOnlyBesideOpenAndClose() {
        #expect(Builder.buttons(from: ["on", "off", "stop", "brightness_stop", "brightness_move_up"]).map(\.name) == ["on", "off"])
        #expect(Builder.buttons(from: ["on", "off", "down", "up", "stop"]).map(\.name) == ["on", "off", "down", "up"])
        #expect(Builder.buttons(from: ["open_3", "close_3", "stop_3"]).map(\.name) == ["open_3", "close_3", "stop_3"])
        #expect(Builder.buttons(from: ["close_cover", "open_cover", "stop_cover"]).map(\.name) == ["close_cover", "open_cover", "stop_cover"])
    }

    @Test("Aqara VOCKQJK11LM TVOC monitor: VOC density from ppb, the device's own level, and the VOC's level without it")
    func tvocMonitor() throws {
        let monitor = try Self.mapping(model: "VOCKQJK11LM")
        let shape = Zigbee2MQTTDevicesTests.shape(monitor.accessory)
        #expect(shape["air_quality_sensor"] == ["air_quality", "voc_density", "status_low_battery"], "\(shape)")
        // 100 ppb of the reference mixture is 450 µg/m³; the device says "good" and that is the level.
        let reading = values(monitor, ["air_quality": "good", "voc": 100, "temperature": 22.5, "humidity": 45, "battery": 100])
        #expect(reading["air_quality_sensor/voc_density"] == .float(450))
        #expect(reading["air_quality_sensor/air_quality"] == .int(2))
        // A message without the word (or with "unknown") takes the level from the VOC: 700 ppb is inferior.
        #expect(values(monitor, ["voc": 700])["air_quality_sensor/air_quality"] == .int(4))
        #expect(values(monitor, ["air_quality": "unknown", "voc": 50])["air_quality_sensor/air_quality"] == .int(1))
        #expect(values(monitor, ["air_quality": "excellent", "voc": 3000])["air_quality_sensor/air_quality"] == .int(1), "the device's word wins")
        #expect(values(monitor, ["voc": 3000])["air_quality_sensor/voc_density"] == .float(1000), "kept within HAP's range")
    }

    @Test("Bosch BTH-RM room thermostat: the cooling setpoint is the cooling threshold, read and written; the heating one both")
    func coolingThermostat() throws {
        let thermostat = try Self.mapping(model: "BTH-RM")
        let shape = Zigbee2MQTTDevicesTests.shape(thermostat.accessory)
        #expect(shape["thermostat"]?.suffix(2) == ["cooling_threshold_temperature", "heating_threshold_temperature"], "\(shape)")
        #expect(thermostat.accessory["thermostat"]?["target_heating_cooling_state"]?.validValues == [0, 1, 2])
        let reading = values(thermostat, ["occupied_heating_setpoint": 21.5, "occupied_cooling_setpoint": 25.5, "local_temperature": 22])
        #expect(reading["thermostat/cooling_threshold_temperature"] == .float(25.5))
        #expect(reading["thermostat/heating_threshold_temperature"] == .float(21.5) && reading["thermostat/target_temperature"] == .float(21.5))
        let cool = [CharacteristicUpdate(service: "thermostat", characteristic: "cooling_threshold_temperature", value: .float(24.5))]
        #expect(try thermostat.encode(cool) == ["occupied_cooling_setpoint": 24.5])
        let heat = [CharacteristicUpdate(service: "thermostat", characteristic: "heating_threshold_temperature", value: .float(19))]
        #expect(try thermostat.encode(heat) == ["occupied_heating_setpoint": 19])
    }
}
