import HomeModel
import Testing

@Suite("The HAP catalogue")
struct CatalogueTests {
    @Test("every service and characteristic of the tables, snake_case and looked up by name")
    func counts() {
        #expect(CharacteristicType.all.count == 149)
        #expect(ServiceType.all.count == 44)
        #expect(CharacteristicType.named("current_temperature") == .current_temperature)
        #expect(ServiceType.named("temperature_sensor") == .temperature_sensor)
        #expect(ServiceType.named("switch") == .switch)
        #expect(CharacteristicType.named("Brightness") == nil)
    }

    @Test("a lightbulb has on, brightness, hue, saturation and colour temperature")
    func lightbulb() {
        #expect(ServiceType.lightbulb.required == [.on])
        for optional in [CharacteristicType.brightness, .hue, .saturation, .color_temperature] {
            #expect(ServiceType.lightbulb.allows(optional))
        }
        #expect(!ServiceType.lightbulb.allows(.current_temperature))
    }

    @Test("metadata as HAP defines it")
    func metadata() {
        let brightness = CharacteristicType.brightness
        #expect(brightness.format == .int && brightness.unit == .percentage)
        #expect(brightness.minValue == 0 && brightness.maxValue == 100 && brightness.minStep == 1)
        #expect(brightness.permissions == [.read, .write, .notify])
        let temperature = CharacteristicType.current_temperature
        #expect(temperature.format == .float && temperature.unit == .celsius && temperature.minStep == 0.1)
        #expect(!temperature.isWritable)
        let ct = CharacteristicType.color_temperature
        #expect(ct.uuid == "000000CE-0000-1000-8000-0026BB765291" && ct.minValue == 140 && ct.maxValue == 500)
        #expect(CharacteristicType.target_heating_cooling_state.validValues == ["off": 0, "heat": 1, "cool": 2, "auto": 3])
        #expect(CharacteristicType.programmable_switch_event.permissions == [.read, .notify])
    }
}
