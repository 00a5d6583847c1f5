import JSON
import Testing

@Suite("Parsing JSON")
struct JSONParsingTests {
    @Test("a Zigbee2MQTT state payload")
    func statePayload() throws {
        let value = try JSONValue(
            parsing: #"{"brightness":254,"color":{"x":0.4573,"y":0.41},"state":"ON","linkquality":null,"update":{"state":"idle"}}"#)
        #expect(value["brightness"] == .integer(254))
        #expect(value["color"]?["x"] == .double(0.4573))
        #expect(value["state"]?.stringValue == "ON")
        #expect(value["linkquality"] == .null)
        #expect(value["update"]?["state"] == "idle")
    }

    @Test("numbers: integers stay integers, fractions and exponents become doubles")
    func numbers() throws {
        #expect(try JSONValue(parsing: "0") == .integer(0))
        #expect(try JSONValue(parsing: "-12") == .integer(-12))
        #expect(try JSONValue(parsing: "21.5") == .double(21.5))
        #expect(try JSONValue(parsing: "1e3") == .double(1000))
        #expect(try JSONValue(parsing: "-0.5E-2") == .double(-0.005))
        #expect(try JSONValue(parsing: "92233720368547758080") == .double(92233720368547758080))
        #expect(JSONValue.double(80.0).intValue == 80)
        #expect(JSONValue.double(80.5).intValue == nil)
    }

    @Test("strings: escapes, \\u escapes and surrogate pairs, raw UTF-8")
    func strings() throws {
        #expect(try JSONValue(parsing: #""a\"b\\c\/d\n\t""#) == .string("a\"b\\c/d\n\t"))
        #expect(try JSONValue(parsing: #""\u00e9\u20ac""#) == .string("é€"))
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue(parsing: "\"Küche 💡\"") == .string("Küche 💡"))
    }

    @Test("white space around and inside is fine")
    func whitespace() throws {
        #expect(try JSONValue(parsing: " \n{ \"a\" : [ 1 , 2 ] }\t\r\n") == ["a": [1, 2]])
        #expect(try JSONValue(parsing: "[]") == [])
        #expect(try JSONValue(parsing: "{}") == [:])
    }

    @Test("malformed documents say what and where", arguments: malformedDocuments)
    func malformed(text: String, message: String) {
        #expect(throws: JSONError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.description == message)
        }
    }

    static let malformedDocuments: [(String, String)] = [
        ("", "unexpected end of input at offset 0"),
        ("{", "expected a string key, found end of input at offset 1"),
        (#"{"a" 1}"#, "expected ':', found character '1' at offset 5"),
        (#"{"a":1,}"#, "expected a string key, found character '}' at offset 7"),
        ("[1 2]", "expected ',' or ']', found character '2' at offset 3"),
        ("01", "leading zero in a number at offset 0"),
        ("1.", "expected a digit after '.' at offset 2"),
        ("-", "expected a digit at offset 1"),
        ("tru", "unexpected character 't' at offset 0"),
        (#""abc"#, "unterminated string at offset 0"),
        ("\"a\u{01}b\"", "control character in a string at offset 2"),
        (#""\x""#, #"invalid escape '\x' at offset 2"#),
        (#""\ud800""#, #"lone high surrogate in a \u escape at offset 7"#),
        (#""\u12G4""#, #"invalid hex digit in a \u escape at offset 5"#),
        ("{} x", "unexpected character 'x' after the value at offset 3"),
        ("NaN", "unexpected character 'N' at offset 0"),
        ("1e999", "number out of range at offset 0"),
    ]

    @Test("invalid UTF-8 inside a string is rejected")
    func invalidUTF8() {
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("hostile nesting is refused, not a stack overflow")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect { try JSONValue(parsing: deep) } throws: { "\($0)".contains("nesting deeper than 64") }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONValue(parsing: fine) }
    }
}

@Suite("Writing JSON")
struct JSONSerializationTests {
    @Test("compact, keys sorted, integers without a fraction")
    func compact() {
        let value: JSONValue = ["state": "ON", "brightness": 254, "color": ["y": 0.41, "x": 0.4573], "on": true, "none": nil]
        #expect(value.serialized() == #"{"brightness":254,"color":{"x":0.4573,"y":0.41},"none":null,"on":true,"state":"ON"}"#)
    }

    @Test("strings are escaped so they parse back the same")
    func escaping() throws {
        let text = "quote \" backslash \\ newline \n tab \t bell \u{07} é 😀"
        let written = JSONValue.string(text).serialized()
        #expect(written == #""quote \" backslash \\ newline \n tab \t bell \u0007 é 😀""#)
        #expect(try JSONValue(parsing: written) == .string(text))
    }

    @Test("doubles round-trip; integral doubles keep a fraction; non-finite become null")
    func doubles() throws {
        for d in [0.1, 21.5, -3.25, 1e-7, 123456.789, 1e20] {
            #expect(try JSONValue(parsing: JSONValue.double(d).serialized()) == .double(d))
        }
        #expect(JSONValue.double(21).serialized() == "21.0")
        #expect(JSONValue.double(.nan).serialized() == "null")
        #expect(JSONValue.double(.infinity).serialized() == "null")
    }

    @Test("documents round-trip")
    func roundTrip() throws {
        let text = #"{"a":[1,2.5,"x",null,true,{"b":[]}],"c":{}}"#
        #expect(try JSONValue(parsing: text).serialized() == text)
    }
}
