import Automation
import HomeModel
import JSON

/// The JSON body of a request, with readers whose errors say which field was wrong.
struct RequestBody {
    let body: JSONValue

    func string(_ key: String) throws(HomeError) -> String {
        guard let value = body[key] else { throw HomeError.invalid("expected \"\(key)\"", field: key) }
        guard case .string(let text) = value else {
            throw HomeError.invalid("\"\(key)\" must be a string, not \(value.kindDescription)", field: key)
        }
        return text
    }

    func optionalString(_ key: String) throws(HomeError) -> String? {
        guard let value = body[key], value != .null else { return nil }
        return try string(key)
    }

    func bool(_ key: String, default fallback: Bool) throws(HomeError) -> Bool {
        guard let value = body[key], value != .null else { return fallback }
        guard case .bool(let flag) = value else { throw HomeError.invalid("\"\(key)\" must be true or false", field: key) }
        return flag
    }

    func strings(_ key: String) throws(HomeError) -> [String]? {
        guard let value = body[key], value != .null else { return nil }
        guard case .array(let items) = value else { throw HomeError.invalid("\"\(key)\" must be a list of strings", field: key) }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw HomeError.invalid("\"\(key)\" must be a list of strings", field: key) }
            strings.append(text)
        }
        return strings
    }

    /// `offset` and `limit`, both optional.
    func page() throws(HomeError) -> Page {
        Page(offset: try count("offset") ?? 0, limit: try count("limit"))
    }

    private func count(_ key: String) throws(HomeError) -> Int? {
        guard let value = body[key], value != .null else { return nil }
        guard let number = value.intValue, number >= 0 else {
            throw HomeError.invalid("\"\(key)\" must be a whole number, 0 or more", field: key)
        }
        return number
    }

    /// A light's transition in seconds, optional: 0 to 6553.5, to the tenth (Zigbee's tenths in 16 bits).
    func transition() throws(HomeError) -> Double? {
        guard let value = body["transition"], value != .null else { return nil }
        guard let seconds = value.doubleValue, WriteRequest.transitions.contains(seconds) else {
            let range = WriteRequest.transitions
            throw HomeError.invalid(
                "\"transition\" must be seconds, a number from \(Int(range.lowerBound)) to \(range.upperBound)", field: "transition")
        }
        return (seconds * 10).rounded() / 10
    }

    /// Refuses keys the command does not take, so a typo is not silently ignored.
    func only(_ allowed: [String]) throws(HomeError) {
        let keys = ObjectKeys(sorted: body.objectValue ?? [:], allowed: allowed, ignoring: ["transaction"])
        if let first = keys.unknown.first {
            let takes =
                allowed.isEmpty
                ? "this command takes no fields" : "this command takes \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))"
            throw HomeError.invalid("unknown field \"\(first.key)\"\(first.suggestion); \(takes)", field: first.key)
        }
    }

    /// `"characteristic": "lamp/lightbulb/on"` (the form action sets and triggers use), or
    /// `accessory`, `service` and `characteristic` side by side.
    static func characteristicReference(_ object: JSONValue) -> (String, String, String)? {
        if object["accessory"] == nil, object["service"] == nil, let text = object["characteristic"]?.stringValue {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
            return (String(parts[0]), String(parts[1]), String(parts[2]))
        }
        guard let a = object["accessory"]?.stringValue, let s = object["service"]?.stringValue,
            let c = object["characteristic"]?.stringValue
        else { return nil }
        return (a, s, c)
    }
}
