import JSON

extension FuzzTarget {
    /// Whatever parses must serialise to text that parses back to the same value, keys sorted or not.
    static func json(_ bytes: [UInt8]) -> String? {
        guard let value = try? JSONValue(parsing: bytes) else { return nil }
        for sortedKeys in [true, false] {
            let text = value.serializedBytes(sortedKeys: sortedKeys)
            let again: JSONValue
            do {
                again = try JSONValue(parsing: text)
            } catch {
                return "the serialised value does not parse (\(error)): \(String(decoding: text, as: UTF8.self))"
            }
            guard again == value else {
                return "the value changed on a round trip: \(String(reflecting: value)) came back as \(String(reflecting: again))"
            }
        }
        return nil
    }
}
