import Testing

@testable import HAP

@Suite("The server's JSON")
struct JSONTests {
    @Test("strings are escaped and numbers written as integers where they are whole")
    func writer() {
        var json = HAPJSONWriter()
        json.string("a\"b\\c\nd\u{01}é")
        json.raw(",")
        json.number(42)
        json.raw(",")
        json.number(0.5)
        json.raw(",")
        json.number(.nan)
        json.raw(",")
        json.value(.data([1, 2, 3]))
        #expect(json.text == #""a\"b\\c\nd\u0001é",42,0.5,null,"AQID""#)
    }

    @Test("bodies keep booleans, integers and doubles apart; broken ones are refused")
    func parser() throws {
        let body = try HAPJSON.parse(Array(#"{"characteristics":[{"aid":1,"iid":2,"value":true},{"aid":1,"iid":3,"value":1.5,"ev":false}]}"#.utf8))
        let items = try #require(body["characteristics"]?.array)
        #expect(items[0]["value"] == .bool(true))
        #expect(items[1]["value"] == .double(1.5))
        #expect(items[1]["aid"]?.int == 1)
        #expect(throws: HAPError.self) { try HAPJSON.parse(Array("{\"characteristics\":[".utf8)) }
        #expect(throws: HAPError.self) { try HAPJSON.parse([0xFF, 0xFE]) }
    }

    @Test("characteristic ids and types read as HAP writes them")
    func identifiers() {
        #expect(HAPCharacteristicID("2.10") == HAPCharacteristicID(aid: 2, iid: 10))
        #expect(HAPCharacteristicID("2") == nil)
        #expect(HAPCharacteristicID("2.x") == nil)
        #expect(HAPCharacteristicID("0.1") == nil)
        #expect(HAPType("00000025-0000-1000-8000-0026BB765291").description == "25")
        #expect(HAPType("0000003e-0000-1000-8000-0026bb765291") == HAPType(0x3E))
        #expect(HAPType("E863F10A-079E-48FF-8F27-9C2605A29F52").description == "E863F10A-079E-48FF-8F27-9C2605A29F52")
    }

    @Test("the accessories document lists metadata and values")
    func accessories() {
        let accessory = HAPAccessory(
            aid: 2,
            services: [
                HAPService(
                    iid: 8, type: HAPType(0x43), primary: true, linked: [9],
                    characteristics: [
                        HAPCharacteristic(
                            iid: 10, type: HAPType(0x08), format: .int, perms: [.pairedRead, .events], unit: .percentage, minValue: 0,
                            maxValue: 100, minStep: 1, value: .int(5))
                    ])
            ])
        #expect(
            HAPAccessoriesJSON.render([accessory])
                == #"{"accessories":[{"aid":2,"services":[{"iid":8,"type":"43","primary":true,"linked":[9],"characteristics":[{"iid":10,"type":"8","perms":["pr","ev"],"format":"int","unit":"percentage","minValue":0,"maxValue":100,"minStep":1,"value":5}]}]}]}"#
        )
    }
}
