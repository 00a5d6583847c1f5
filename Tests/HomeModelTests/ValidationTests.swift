import HomeModel
import JSON
import Testing

@Suite("Values are checked against metadata")
struct ValidationTests {
    func light() -> Accessory {
        Accessory(
            id: "hallway_light", name: "Hallway Light", category: .lightbulb,
            services: [
                Service(
                    id: "lightbulb", type: .lightbulb, isPrimary: true,
                    characteristics: [
                        Characteristic(.on, value: .bool(false)),
                        Characteristic(.brightness, value: .int(50)),
                        Characteristic(.color_temperature, minValue: 250, maxValue: 454),
                    ])
            ])
    }

    func sensor() -> Accessory {
        Accessory(
            id: "weather", name: "Weather",
            services: [
                Service(id: "temperature_sensor", type: .temperature_sensor, characteristics: [Characteristic(.current_temperature)]),
                Service(
                    id: "thermostat", type: .thermostat,
                    characteristics: [
                        Characteristic(.target_temperature, minValue: 5, maxValue: 30, minStep: 0.5),
                        Characteristic(.target_heating_cooling_state, validValues: [0, 1]),
                    ]),
            ])
    }

    @Test(
        "writes that do not fit are refused with a message naming where and why",
        arguments: [
            ("lightbulb", "brightness", CharacteristicValue.int(500), "hallway_light/lightbulb/brightness: 500 is above the maximum 100"),
            ("lightbulb", "brightness", .int(-1), "hallway_light/lightbulb/brightness: -1 is below the minimum 0"),
            ("lightbulb", "brightness", .float(50.5), "hallway_light/lightbulb/brightness: 50.5 is not a whole number"),
            ("lightbulb", "on", .string("yes"), #"hallway_light/lightbulb/on: "yes" is not a bool"#),
            ("lightbulb", "color_temperature", .int(500), "hallway_light/lightbulb/color_temperature: 500 is above the maximum 454"),
            ("lightbulb", "hue", .int(10), "hallway_light/lightbulb/hue: no such characteristic"),
            ("fan", "on", .bool(true), "hallway_light/fan: no such service"),
        ])
    func refusedWrites(service: String, characteristic: String, value: CharacteristicValue, message: String) {
        #expect(throws: (any Error).self) { try light().validateWrite(service: service, characteristic: characteristic, value: value) }
        do {
            _ = try light().validateWrite(service: service, characteristic: characteristic, value: value)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("read-only characteristics cannot be written by the API, but devices update them")
    func readOnly() throws {
        var weather = sensor()
        #expect(throws: HomeModelError.readOnly(accessory: "weather", service: "temperature_sensor", characteristic: "current_temperature"))
        {
            try weather.validateWrite(service: "temperature_sensor", characteristic: "current_temperature", value: .float(20))
        }
        let change = try weather.update(service: "temperature_sensor", characteristic: "current_temperature", value: .float(21.5))
        #expect(change?.value == .float(21.5) && change?.previous == nil)
    }

    @Test("steps and valid values: in-range writes between steps go to the nearest step, values outside the device's list are refused")
    func stepsAndValidValues() throws {
        let weather = sensor()
        func write(_ value: CharacteristicValue) throws -> CharacteristicValue {
            try weather.validateWrite(service: "thermostat", characteristic: "target_temperature", value: value)
        }
        #expect(try write(.float(21.5)) == .float(21.5))
        #expect(try write(.int(21)) == .float(21))
        // 70 °F as iOS converts it for a Fahrenheit user: 21.1 °C, between the 0.5 steps.
        #expect(try write(.float(21.11111)) == .float(21))
        #expect(try write(.float(21.3)) == .float(21.5))
        #expect(try write(.float(29.9)) == .float(30))
        #expect { try write(.float(30.4)) } throws: { "\($0)" == "weather/thermostat/target_temperature: 30.5 is above the maximum 30" }
        #expect {
            try weather.validateWrite(service: "thermostat", characteristic: "target_heating_cooling_state", value: .int(2))
        } throws: {
            "\($0)" == "weather/thermostat/target_heating_cooling_state: 2 is not one of the valid values 0 (off), 1 (heat)"
        }
    }

    @Test("an in-range write stays in range when the maximum is off the grid")
    func maximumOffTheGrid() throws {
        let valve = Accessory(
            id: "valve", name: "Valve",
            services: [
                Service(
                    id: "thermostat", type: .thermostat,
                    characteristics: [
                        Characteristic(.target_temperature, minValue: 4, maxValue: 35.2, minStep: 0.5),
                        Characteristic(.target_relative_humidity, minValue: 0, maxValue: 99, minStep: 5),
                    ])
            ])
        #expect(try valve.validateWrite(service: "thermostat", characteristic: "target_temperature", value: .float(35.2)) == .float(35))
        #expect(try valve.validateWrite(service: "thermostat", characteristic: "target_relative_humidity", value: .float(98)) == .float(95))
    }

    @Test("devices report more digits than HAP carries: rounded to the step, then compared")
    func deviceRounding() throws {
        var weather = sensor()
        let first = try weather.update(service: "temperature_sensor", characteristic: "current_temperature", value: .float(21.23))
        #expect(first?.value == .float(21.2))
        let same = try weather.update(service: "temperature_sensor", characteristic: "current_temperature", value: .float(21.24))
        #expect(same == nil, "21.24 rounds to the same 21.2")
        let integral = try weather.update(service: "temperature_sensor", characteristic: "current_temperature", value: .int(22))
        #expect(integral?.value == .float(22) && integral?.previous == .float(21.2))
    }

    @Test("setting a value that did not change reports no change")
    func unchanged() throws {
        var light = light()
        #expect(try light.update(service: "lightbulb", characteristic: "on", value: .bool(false)) == nil)
        let change = try light.update(service: "lightbulb", characteristic: "on", value: .bool(true), source: .api)
        #expect(
            change
                == CharacteristicChange(
                    accessory: "hallway_light", service: "lightbulb", characteristic: "on",
                    value: .bool(true), previous: .bool(false), source: .api))
        #expect(light["lightbulb"]?["on"]?.value == .bool(true))
    }

    @Test("an integral float is accepted for an int and stored as an int")
    func canonicalForms() throws {
        #expect(try light().validateWrite(service: "lightbulb", characteristic: "brightness", value: .float(80)) == .int(80))
    }

    @Test("topic-safe ids")
    func ids() {
        #expect(Accessory.topicSafeID("Living Room Light!") == "living_room_light_")
        #expect(Accessory.topicSafeID("0x00158d0001a2b3c4") == "0x00158d0001a2b3c4")
        #expect(Accessory.topicSafeID("Küche/Decke") == "kuche_decke")
    }

    @Test("state JSON carries reachability and the known values")
    func statePayload() throws {
        var light = light()
        _ = try light.update(service: "lightbulb", characteristic: "brightness", value: .int(80))
        #expect(
            String(decoding: light.statePayload, as: UTF8.self)
                == #"{"reachable":true,"services":{"lightbulb":{"brightness":80,"on":false}}}"#)
        let tree = light.treeJSON
        #expect(tree["services"]?[0]?["characteristics"]?[2]?["max"] == 454)
        #expect(tree["services"]?[0]?["characteristics"]?[1]?["permissions"] == ["read", "write", "notify"])
    }
}
