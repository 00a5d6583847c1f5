import Gateway
import HAP
import HomeModel
import JSON
import Testing

@testable import HAPBridge

@Suite("homegate's values and metadata in HAP's terms")
struct ConversionTests {
    @Test("values keep their meaning in the characteristic's format")
    func values() {
        #expect(Conversion.value(.int(21), format: .float) == .double(21))
        #expect(Conversion.value(.float(80), format: .uint8) == .int(80))
        #expect(Conversion.value(.string("AQI="), format: .tlv8) == .data([1, 2]))
        #expect(Conversion.json(.data([1, 2])) == .string("AQI="))
    }

    @Test("a characteristic's catalogue metadata, and no pw where the device cannot be written")
    func metadata() {
        var brightness = Characteristic(.brightness, value: .int(40))
        var hap = Conversion.characteristic(brightness, iid: 9, value: nil)
        #expect(hap.type == HAPType(0x8))
        #expect(hap.format == .int && hap.unit == .percentage)
        #expect((hap.minValue, hap.maxValue, hap.minStep) == (0, 100, 1))
        #expect(hap.perms == [.pairedRead, .pairedWrite, .events])
        brightness.isWritable = false
        hap = Conversion.characteristic(brightness, iid: 9, value: nil)
        #expect(hap.perms == [.pairedRead, .events])
        #expect(Conversion.placeholder(for: Characteristic(.current_temperature)) == .double(0))
        #expect(Conversion.placeholder(for: Characteristic(.color_temperature)) == .int(140))
    }

    @Test("a button's press reads as null, before and after a press; others read their value or a placeholder")
    func reads() {
        #expect(Conversion.readValue(Characteristic(.programmable_switch_event)) == nil)
        #expect(Conversion.readValue(Characteristic(.programmable_switch_event, value: .int(0))) == nil)
        #expect(Conversion.readValue(Characteristic(.on)) == .bool(false))
        #expect(Conversion.readValue(Characteristic(.brightness, value: .int(40))) == .int(40))
    }

    @Test("refusals map to HAP status codes")
    func statuses() {
        #expect(StatusMapping.status(for: HomeError(.invalid, "x")) == .invalidValue)
        #expect(StatusMapping.status(for: HomeError(.unreachable, "x")) == .serviceCommunicationFailure)
        #expect(StatusMapping.status(for: HomeError(.notFound, "x")) == .resourceDoesNotExist)
    }

    @Test("AccessoryInformation: firmware as HAP wants it, strings within 64 bytes")
    func information() {
        #expect(AccessoryInformation.firmwareRevision("1.2.3") == "1.2.3")
        #expect(AccessoryInformation.firmwareRevision("20230101-build7") == "1.0.0")
        #expect(AccessoryInformation.clipped(String(repeating: "é", count: 40)).utf8.count == 64)
    }

    @Test("HOMEGATE_HAP_* set the bridge; a bad setup code is refused without echoing it")
    func configuration() throws {
        let settings = try GatewayConfiguration.load(
            path: nil,
            environment: [
                "HOMEGATE_HAP_ENABLED": "true", "HOMEGATE_HAP_BIND": "127.0.0.1", "HOMEGATE_HAP_PORT": "0",
                "HOMEGATE_HAP_NAME": "Loft", "HOMEGATE_HAP_SETUP_CODE": "031-45-154",
            ])
        #expect(settings.hap.enabled && settings.hap.bind == "127.0.0.1" && settings.hap.port == 0 && settings.hap.name == "Loft")
        #expect(settings.hap.revealedSetupCode == "031-45-154")
        #expect(GatewayConfiguration().hap.enabled == false)
        #expect { try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_HAP_SETUP_CODE": "98765"]) } throws: {
            "\($0)".contains("HOMEGATE_HAP_SETUP_CODE") && !"\($0)".contains("98765")
        }
    }
}
