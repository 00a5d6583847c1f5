import Testing

@testable import HAP

@Suite("Write validation against the characteristic's metadata")
struct ValidationTests {
    let brightness = HAPCharacteristic(
        iid: 10, type: HAPType(0x08), format: .int, perms: [.pairedRead, .pairedWrite, .events], minValue: 0, maxValue: 100)
    let on = HAPCharacteristic(iid: 9, type: HAPType(0x25), format: .bool, perms: [.pairedRead, .pairedWrite])
    let hue = HAPCharacteristic(iid: 12, type: HAPType(0x13), format: .float, perms: [.pairedWrite], minValue: 0, maxValue: 360)
    let name = HAPCharacteristic(iid: 11, type: HAPType(0x23), format: .string, perms: [.pairedWrite], maxLength: 4)
    let button = HAPCharacteristic(iid: 9, type: .programmableSwitchEvent, format: .uint8, perms: [.pairedRead], validValues: [0, 2])

    @Test("values of the right format within range pass, converted")
    func valid() {
        #expect(brightness.validate(.int(100)) == .success(.int(100)))
        #expect(brightness.validate(.double(50)) == .success(.int(50)))
        #expect(on.validate(.bool(true)) == .success(.bool(true)))
        #expect(on.validate(.int(0)) == .success(.bool(false)))
        #expect(hue.validate(.int(360)) == .success(.double(360)))
        #expect(name.validate(.string("Lamp")) == .success(.string("Lamp")))
        #expect(button.validate(.int(2)) == .success(.int(2)))
    }

    @Test(
        "out of range, wrong format, not a valid value or too long: -70410",
        arguments: [
            (0, HAPJSON.int(101)), (0, .int(-1)), (0, .double(50.5)), (0, .string("50")), (0, .bool(true)), (0, .null),
            (1, .int(2)), (1, .string("true")), (2, .double(360.5)), (2, .string("1")), (3, .string("Lamps")), (3, .int(1)),
            (4, .int(1)), (4, .int(256)),
        ])
    func invalid(characteristic: Int, value: HAPJSON) {
        let characteristics = [brightness, on, hue, name, button]
        #expect(characteristics[characteristic].validate(value) == .failure(.invalidValue))
    }

    @Test("integer formats keep to their own bounds without a minValue or maxValue")
    func formatBounds() {
        let level = HAPCharacteristic(iid: 1, type: HAPType(0x99), format: .uint8, perms: [.pairedWrite])
        #expect(level.validate(.int(255)) == .success(.int(255)))
        #expect(level.validate(.int(256)) == .failure(.invalidValue))
        #expect(level.validate(.int(-1)) == .failure(.invalidValue))
    }
}
