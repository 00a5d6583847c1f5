import Testing

@testable import Matter

@Suite("Matter setup codes")
struct SetupPayloadTests {
    /// What the Matter SDK's own generator (chip.setup_payload 2025.7.0) prints for these setups.
    static let sdkExamples: [(passcode: UInt32, vendor: UInt16, product: UInt16, discriminator: UInt16, qr: String, manual: String)] = [
        (20_202_021, 0xFFF1, 0x8000, 3840, "MT:Y.K90AFN00KA0648G00", "34970112332"),
        (20_202_021, 0xFFF1, 0x8001, 3840, "MT:-24J0AFN00KA0648G00", "34970112332"),
        (12_345_679, 0xFFF1, 0x8000, 0, "MT:Y.K90AFN00-QG46Y900", "00852707534"),
        (99_999_998, 0xFFF4, 0xFFFF, 4095, "MT:6JS18PD6271DQ36B420", "35759861036"),
        (1, 0, 0, 0x123, "MT:00000-O913GE0000000", "01638500004"),
    ]

    @Test("prints the QR payload and manual code the SDK prints for the same setup")
    func matchesTheSDK() throws {
        for example in Self.sdkExamples {
            let payload = try SetupPayload(
                passcode: example.passcode, discriminator: example.discriminator, vendorID: example.vendor, productID: example.product)
            #expect(payload.qrCodePayload == example.qr)
            #expect(payload.manualPairingCode == example.manual)
            #expect(Verhoeff.isValid(payload.manualPairingCode))
        }
    }

    @Test(
        "refuses the forbidden passcodes and those out of range",
        arguments: [
            0, 11_111_111, 22_222_222, 33_333_333, 44_444_444, 55_555_555, 66_666_666, 77_777_777, 88_888_888, 99_999_999,
            12_345_678, 87_654_321, 100_000_000,
        ] as [UInt32])
    func refusesForbidden(passcode: UInt32) {
        #expect(throws: MatterError.self) { try SetupPayload.validate(passcode: passcode) }
    }

    @Test("random passcodes are always allowed ones")
    func randomPasscodes() throws {
        for _ in 0..<1000 { try SetupPayload.validate(passcode: SetupPayload.randomPasscode()) }
    }

    @Test("the Verhoeff check digit catches a changed digit and a swap of neighbours")
    func verhoeffCatchesErrors() {
        #expect(Verhoeff.isValid("34970112332"))
        #expect(!Verhoeff.isValid("34970112333"))
        #expect(!Verhoeff.isValid("43970112332"))
    }

    @Test("refuses a discriminator of more than 12 bits")
    func refusesWideDiscriminator() {
        #expect(throws: MatterError.self) { try SetupPayload(passcode: 20_202_021, discriminator: 4096, vendorID: 0xFFF1, productID: 1) }
    }
}
