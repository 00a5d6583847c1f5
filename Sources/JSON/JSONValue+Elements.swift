extension JSONValue {
    /// Where each element of a top-level array lies, found from the brackets and strings alone: the
    /// elements themselves are not checked (parse each with `init(parsingElement:)` for that). A large
    /// document (a 1,000-device `bridge/devices`) is then read one element at a time and never exists
    /// as one value tree. Nil when the bytes are not an array of that shape: an unbalanced bracket,
    /// an unterminated string, an empty element, anything after the closing bracket.
    public static func elementRanges(ofArray buffer: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        let count = buffer.count
        var index = 0
        func skipWhitespace() {
            while index < count, buffer[index] == 0x20 || buffer[index] == 0x0A || buffer[index] == 0x0D || buffer[index] == 0x09 {
                index += 1
            }
        }
        skipWhitespace()
        guard index < count, buffer[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        skipWhitespace()
        var ranges: [Range<Int>] = []
        if index < count, buffer[index] == UInt8(ascii: "]") {
            index += 1
            skipWhitespace()
            return index == count ? ranges : nil
        }
        while true {
            skipWhitespace()
            let start = index
            var depth = 0
            scan: while index < count {
                switch buffer[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    while index < count, buffer[index] != UInt8(ascii: "\"") {
                        index += buffer[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    guard index < count else { return nil }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { break scan }
                    depth -= 1
                case UInt8(ascii: ","):
                    if depth == 0 { break scan }
                default:
                    break
                }
                index += 1
            }
            guard index < count, index > start else { return nil }
            ranges.append(start..<index)
            if buffer[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard buffer[index] == UInt8(ascii: "]") else { return nil }
            index += 1
            skipWhitespace()
            return index == count ? ranges : nil
        }
    }
}
