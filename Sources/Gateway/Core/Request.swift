import Automation
import HomeModel
import JSON

/// The body of a `homegate/request/<command>`, with readers whose errors say which field was wrong.
struct Request {
    let body: JSONValue

    func string(_ key: String) throws(RequestError) -> String {
        guard let value = body[key] else { throw RequestError("expected \"\(key)\"") }
        guard case .string(let text) = value else { throw RequestError("\"\(key)\" must be a string, not \(value.kindDescription)") }
        return text
    }

    func optionalString(_ key: String) throws(RequestError) -> String? {
        guard let value = body[key], value != .null else { return nil }
        return try string(key)
    }

    func bool(_ key: String, default fallback: Bool) throws(RequestError) -> Bool {
        guard let value = body[key], value != .null else { return fallback }
        guard case .bool(let flag) = value else { throw RequestError("\"\(key)\" must be true or false") }
        return flag
    }

    func strings(_ key: String) throws(RequestError) -> [String]? {
        guard let value = body[key], value != .null else { return nil }
        guard case .array(let items) = value else { throw RequestError("\"\(key)\" must be a list of strings") }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw RequestError("\"\(key)\" must be a list of strings") }
            strings.append(text)
        }
        return strings
    }

    /// `offset` and `limit` (both optional) applied to a list: a UI can page through a large home
    /// instead of holding up device messages while thousands of entries are written out.
    func page<T>(of items: [T]) throws(RequestError) -> ArraySlice<T> {
        let offset = try count("offset") ?? 0
        let limit = try count("limit") ?? items.count
        let start = min(offset, items.count)
        return items[start..<(start + min(limit, items.count - start))]
    }

    private func count(_ key: String) throws(RequestError) -> Int? {
        guard let value = body[key], value != .null else { return nil }
        guard let number = value.intValue, number >= 0 else { throw RequestError("\"\(key)\" must be a whole number, 0 or more") }
        return number
    }

    /// Refuses keys the command does not take, so a typo is not silently ignored.
    func only(_ allowed: [String]) throws(RequestError) {
        for key in (body.objectValue ?? [:]).keys.sorted() where key != "transaction" && !allowed.contains(key) {
            let takes = allowed.isEmpty ? "this command takes no fields" : "this command takes \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))"
            throw RequestError("unknown field \"\(key)\"\(didYouMean(key, allowed)); \(takes)")
        }
    }
}

/// Why a request was refused, with what was done anyway (the results of an action set run).
struct RequestError: Error, CustomStringConvertible {
    let description: String
    var data: JSONValue?
    init(_ description: String, data: JSONValue? = nil) {
        self.description = description
        self.data = data
    }
}

/// A command of the home API: whether it changes what is stored, and what it does.
struct HomeCommand: Sendable {
    let changes: Bool
    let run: @Sendable (inout GatewayCore, Request) throws -> JSONValue
}
