import JSON
import Testing

@Suite("JSON edge cases")
struct JSONEdgeCaseTests {
    @Test(
        "more malformed documents, each with its reason and offset",
        arguments: [
            ("[1,]", "unexpected character ']' at offset 3"),
            ("{a:1}", "expected a string key, found character 'a' at offset 1"),
            (".5", "unexpected character '.' at offset 0"),
            ("+1", "unexpected character '+' at offset 0"),
            ("1e", "expected a digit in the exponent at offset 2"),
            ("1e+", "expected a digit in the exponent at offset 3"),
            ("-01", "leading zero in a number at offset 1"),
            ("[1] [2]", "unexpected character '[' after the value at offset 4"),
            ("nul", "unexpected character 'n' at offset 0"),
            ("[true, fals]", "unexpected character 'f' at offset 7"),
            (#"{"a":1 "b":2}"#, "expected ',' or '}', found character '\"' at offset 7"),
            (#"{"a":}"#, "unexpected character '}' at offset 5"),
            ("[", "unexpected end of input at offset 1"),
            ("[1", "unexpected end of input in an array at offset 2"),
            (#"{"a":1"#, "unexpected end of input in an object at offset 6"),
            (#""\u00""#, #"incomplete \u escape at offset 3"#),
            (#""\udc00""#, #"lone low surrogate in a \u escape at offset 7"#),
            (#""\ud800\u0041""#, #"invalid low surrogate in a \u escape at offset 13"#),
            (#""\ud800x""#, #"lone high surrogate in a \u escape at offset 7"#),
            ("[\"a\tb\"]", "control character in a string at offset 3"),
            (#"["\n\x"]"#, #"invalid escape '\x' at offset 5"#),
            ("\u{FEFF}{}", "unexpected byte 0xef at offset 0"),
            ("'a'", "unexpected character ''' at offset 0"),
        ])
    func malformed(text: String, message: String) {
        #expect { try JSONValue(parsing: text) } throws: { ($0 as? JSONError)?.description == message }
    }

    @Test("invalid UTF-8 is reported at the string that holds it, with or without escapes")
    func invalidUTF8() {
        #expect { try JSONValue(parsing: [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D]) } throws: {
            ($0 as? JSONError)?.description == "invalid UTF-8 in a string at offset 2"
        }
        #expect { try JSONValue(parsing: [0x22, 0x5C, 0x6E, 0xFF, 0x22]) } throws: {
            ($0 as? JSONError)?.description == "invalid UTF-8 in a string at offset 1"
        }
    }

    @Test("integers at the edge of Int stay integers; beyond it they become doubles")
    func integerLimits() throws {
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .integer(.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9223372036854775808))
        #expect(try JSONValue(parsing: "-0") == .integer(0))
        #expect(try JSONValue(parsing: "-0.0").serialized() == "-0.0")
    }

    @Test("any collection of bytes parses: arrays, slices, and ones without contiguous storage")
    func collections() throws {
        let bytes = Array(#"xx{"state":"ON"}yy"#.utf8)
        #expect(try JSONValue(parsing: bytes[2..<16]) == ["state": "ON"])
        #expect(try JSONValue(parsing: bytes[2..<16].lazy.map { $0 }) == ["state": "ON"])
    }

    @Test("unicode survives a round trip, escaped or raw")
    func unicode() throws {
        let text = "Küche · 💡 · \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} · \u{0}"
        let written = JSONValue.string(text).serialized()
        #expect(written.hasSuffix(#"\u0000""#))
        #expect(try JSONValue(parsing: written) == .string(text))
        #expect(try JSONValue(parsing: #""\u00FC\uD83D\uDCA1""#) == .string("ü💡"))
    }

    @Test("keys unsorted on request; accessors say what they hold")
    func accessors() throws {
        let value: JSONValue = ["list": [1, 2.5, "x"], "on": true]
        #expect(value["list"]?[1]?.doubleValue == 2.5)
        #expect(value["list"]?[3] == nil)
        #expect(value["on"]?.boolValue == true)
        #expect(value["missing"] == nil)
        #expect(value["list"]?.arrayValue?.count == 3)
        #expect(value.objectValue?.keys.sorted() == ["list", "on"])
        #expect(JSONValue.integer(3)["x"] == nil)
        #expect(value.serializedBytes() == Array(value.serialized().utf8))
        #expect(try JSONValue(parsing: value.serialized(sortedKeys: false)) == value)
    }

    @Test("the last of duplicate keys wins, as in most parsers")
    func duplicateKeys() throws {
        #expect(try JSONValue(parsing: #"{"a":1,"a":2}"#) == ["a": 2])
    }
}
