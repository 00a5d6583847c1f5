import JSON
import Testing

@Suite("Finding a large array's elements without parsing them")
struct JSONElementRangesTests {
    static func elements(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            JSONValue.elementRanges(ofArray: buffer)?.map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    @Test("every element in order, parsed on its own the same as in the whole array")
    func parsedAlone() throws {
        let bytes = Array(#" [ {"a":1}, [2,3], "x", null , 4.5 ] "#.utf8)
        let ranges = try #require(bytes.withUnsafeBufferPointer { JSONValue.elementRanges(ofArray: $0) })
        let alone = try bytes.withUnsafeBufferPointer { buffer in
            try ranges.map { try JSONValue(parsingElement: UnsafeBufferPointer(rebasing: buffer[$0])) }
        }
        #expect(alone == (try JSONValue(parsing: bytes)).arrayValue)
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
