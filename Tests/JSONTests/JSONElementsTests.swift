import JSON
import Testing

@Suite("Parsing a large array element by element")
struct JSONElementsTests {
    @Test("every element in order, the same as parsing the whole array")
    func elements() throws {
        let text = #" [ {"a":1}, [2,3], "x", null , 4.5 ] "#
        var seen: [JSONValue] = []
        try JSONValue.forEachElement(ofArray: Array(text.utf8)) { seen.append($0) }
        #expect(seen == (try JSONValue(parsing: text)).arrayValue)
        var none = 0
        try JSONValue.forEachElement(ofArray: Array("[]".utf8)) { _ in none += 1 }
        #expect(none == 0)
    }

    @Test(
        "what is not one well-formed array is an error that says where",
        arguments: [
            ("{}", "expected an array, found character '{' at offset 0"),
            ("[1,", "unexpected end of input at offset 3"),
            ("[1 2]", "expected ',' or ']', found character '2' at offset 3"),
            ("[1] x", "unexpected character 'x' after the value at offset 4"),
        ])
    func malformed(text: String, message: String) {
        #expect { try JSONValue.forEachElement(ofArray: Array(text.utf8)) { _ in } } throws: { "\($0)" == message }
    }
}

@Suite("Finding a large array's elements without parsing them")
struct JSONElementRangesTests {
    static func elements(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            JSONValue.elementRanges(ofArray: buffer)?.map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    @Test("each element's bytes, strings holding brackets, commas and escaped quotes kept whole")
    func elements() {
        #expect(
            Self.elements(#" [ {"a":"],}"}, [2,[3]], "x\"],", null , 4.5 ] "#) == [
                #"{"a":"],}"}"#, "[2,[3]]", #""x\"],""#, "null ", "4.5 ",
            ])
        #expect(Self.elements("[]") == [])
        #expect(Self.elements(" [\n] ") == [])
        #expect(Self.elements(#"["\\"]"#) == [#""\\""#])
    }

    @Test(
        "what is not an array of that shape is nil",
        arguments: ["", "{}", "[", "[1,", "[1,]", "[,1]", "[1] x", "[{]", "[{}}, 1]", "[\"a]", "[\"a\\\"]", "[1]]", "1"])
    func malformed(text: String) {
        #expect(Self.elements(text) == nil)
    }
}
