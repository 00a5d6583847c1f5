import Testing

@testable import HAP

@Suite("Setup code, setup URI and setup hash")
struct SetupCodeTests {
    @Test("codes read with or without dashes and print as XXX-XX-XXX")
    func parsing() throws {
        #expect(try HAPSetupCode("031-45-154").description == "031-45-154")
        #expect(try HAPSetupCode("03145154").description == "031-45-154")
    }

    @Test(
        "trivial and malformed codes are refused",
        arguments: ["000-00-000", "111-11-111", "999-99-999", "123-45-678", "876-54-321", "12-345-678", "031-45-15", "abc-de-fgh", "031-45-1540"])
    func refused(code: String) {
        #expect(throws: HAPError.self) { try HAPSetupCode(code) }
    }

    @Test("random codes are never trivial and IDs are four of 0-9A-Z")
    func random() throws {
        for _ in 0..<200 {
            let code = HAPSetupCode.random()
            #expect(!HAPSetupCode.trivial.contains(code.digits))
            _ = try HAPSetupID(HAPSetupID.random().description)
            _ = try HAPDeviceID(HAPDeviceID.random().description)
        }
    }

    @Test("the setup URI of HAP-python's tests (tests/test_accessory.py, test_xhm_uri: television, 323-23-1212, BBBB)")
    func hapPythonURI() throws {
        let uri = HAPSetupURI.make(codeNumber: 323_231_212, setupID: try HAPSetupID("BBBB"), category: HAPCategory(rawValue: 31))
        #expect(uri == "X-HM://00UQBOTF0BBBB")
    }

    @Test("a bridge with 031-45-154 and setup ID 8H2B")
    func bridgeURI() throws {
        // Category 2 << 31 | IP 2 << 27 | 3145154 = 4297113794 = "0023ISYWY" in base 36.
        let uri = HAPSetupURI.make(code: try HAPSetupCode("031-45-154"), setupID: try HAPSetupID("8H2B"), category: .bridge)
        #expect(uri == "X-HM://0023ISYWY8H2B")
    }

    @Test("sh is base64 of the first 4 bytes of SHA-512(setup ID + device ID) (value from Python's hashlib)")
    func setupHash() throws {
        let hash = HAPSetupURI.setupHash(setupID: try HAPSetupID("8H2B"), deviceID: try HAPDeviceID("AA:BB:CC:DD:EE:FF"))
        #expect(hash == "EcigmA==")
    }

    @Test("the TXT record has every key the controllers read")
    func txt() throws {
        let identity = try HAPIdentity(
            deviceID: HAPDeviceID("AA:BB:CC:DD:EE:FF"), longTermSecretKey: [UInt8](repeating: 3, count: 32),
            setupCode: HAPSetupCode("031-45-154"), setupID: HAPSetupID("8H2B"))
        let txt = HAPTXTRecord.make(identity: identity, model: "homegate", category: .bridge, configurationNumber: 7, isPaired: false)
        #expect(
            txt == ["c#": "7", "ff": "0", "id": "AA:BB:CC:DD:EE:FF", "md": "homegate", "pv": "1.1", "s#": "1", "sf": "1", "ci": "2", "sh": "EcigmA=="])
        #expect(!identity.description.contains("031"))
    }
}
