extension JSONValue {
    /// Parses a top-level array one element at a time, handing each to `body` and letting it go:
    /// a large document (a 1,000-device `bridge/devices`) never exists as one value tree.
    public static func forEachElement(ofArray bytes: some Collection<UInt8>, _ body: (JSONValue) -> Void) throws(JSONError) {
        let result: Result<Void, JSONError> =
            bytes.withContiguousStorageIfAvailable { Self.elements($0, body) }
            ?? Array(bytes).withUnsafeBufferPointer { Self.elements($0, body) }
        try result.get()
    }

    private static func elements(_ buffer: UnsafeBufferPointer<UInt8>, _ body: (JSONValue) -> Void) -> Result<Void, JSONError> {
        var parser = JSONParser(buffer)
        do throws(JSONError) {
            parser.skipWhitespace()
            guard parser.index < buffer.count, buffer[parser.index] == UInt8(ascii: "[") else {
                throw parser.error("expected an array, found \(parser.describeCurrent())")
            }
            parser.index += 1
            parser.skipWhitespace()
            if parser.index < buffer.count, buffer[parser.index] == UInt8(ascii: "]") {
                parser.index += 1
            } else {
                while true {
                    parser.skipWhitespace()
                    body(try parser.value(depth: 1))
                    parser.skipWhitespace()
                    guard parser.index < buffer.count else { throw parser.error("unexpected end of input in an array") }
                    if buffer[parser.index] == UInt8(ascii: ",") { parser.index += 1; continue }
                    if buffer[parser.index] == UInt8(ascii: "]") { parser.index += 1; break }
                    throw parser.error("expected ',' or ']', found \(parser.describeCurrent())")
                }
            }
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected \(parser.describeCurrent()) after the value") }
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}
