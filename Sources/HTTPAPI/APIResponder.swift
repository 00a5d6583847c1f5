import Foundation
import GatewayCore
import HTTPTypes
import HomeModel
import Hummingbird
import JSON
import Logging
import NIOCore

/// What the HTTP API's routes do (`APIRouter` decides which runs): a command route builds its
/// `HomeCommand` from the path, the query and the body, runs it on the gateway's typed surface, and
/// maps the `Answer` to a status. Errors are JSON everywhere: `{"error": "…", "kind": "…", "field": "…"}`.
struct APIResponder: Sendable {
    typealias Context = APIRequestContext

    let access: any GatewayAccess
    let settings: HTTPSettings
    let files: StaticFiles
    let metrics: MetricsExporter
    let logger: Logger
    /// The HomeKit bridge's pairing panel (`/api/homekit`); nil when the bridge is off.
    var homeKit: (any HomeKitControl)? = nil
    /// The Matter bridge's (`/api/matter`); nil when that bridge is off.
    var matter: (any MatterControl)? = nil

    /// `/readyz`: the health report, 503 while not ready.
    func ready() async -> Response {
        let report = await access.health()
        return Self.json(report["ready"] == .bool(true) ? .ok : .serviceUnavailable, report)
    }

    /// `/metrics`, in the Prometheus text format.
    func scrape() async -> Response {
        let text = await metrics.scrape(access)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: Commands

    /// A command route: `pathFields` are the route's `{name}` parts, percent-decoded.
    func run(_ route: Route, _ pathFields: [String: String], _ request: Request) async -> Response {
        var fields: [String: JSONValue] = pathFields.mapValues { .string($0) }
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            if name == "access_token" { continue }
            guard fields[name] == nil else { return Self.error(.badRequest, "invalid", "\"\(name)\" is given twice", field: name) }
            fields[name] = Self.queryValue(name, String(value))
        }
        var request = request
        let body: JSONValue?
        switch await readBody(&request) {
        case .failure(let refusal): return refusal.response
        case .success(let parsed): body = parsed
        }
        switch route.body {
        case .fields:
            if let body {
                guard case .object(let given) = body else {
                    return Self.error(.badRequest, "invalid", "the body must be a JSON object, not \(body.kindDescription)")
                }
                for (key, value) in given {
                    guard fields[key] == nil else {
                        return Self.error(
                            .badRequest, "invalid", "\"\(key)\" is given twice (in the path or query and in the body)", field: key)
                    }
                    fields[key] = value
                }
            }
        case .value:
            guard case .object(let given)? = body, let value = given["value"] else {
                return Self.error(.badRequest, "invalid", "expected a body like {\"value\": true}", field: "value")
            }
            if let extra = given.keys.sorted().first(where: { $0 != "value" && $0 != "transition" }) {
                return Self.error(
                    .badRequest, "invalid", "unknown field \"\(extra)\"; this route takes \"value\" and \"transition\"", field: extra)
            }
            var write = fields
            write["value"] = value
            if let transition = given["transition"] { write["transition"] = transition }
            fields = ["writes": [.object(write)]]
        }
        let command: HomeCommand
        let writes: WriteBatch?
        do throws(HomeError) {
            (command, writes) = try HomeCommand.request(route.command, .object(fields), timeZone: access.timeZone)
        } catch {
            return Self.response(.refused(error, partial: nil), created: false)
        }
        let answer = await access.perform(command)
        var data = answer.result.map(HomeJSON.json)
        var error = answer.error
        if let writes, case .writes(let outcomes)? = answer.result {
            (data, error) = writes.results(outcomes)  // one result per entry, the malformed ones' included
        }
        // The value this route's body carries is the field a refused write names.
        if route.body == .value, error?.kind == .invalid, error?.field == nil { error?.field = "value" }
        if case .notStored(_, let reason) = answer {
            return Self.response(data: data, error: nil, unstored: reason, created: route.creates)
        }
        return Self.response(data: data, error: error, unstored: nil, created: route.creates)
    }

    /// The body as JSON, nil when there is none; or the refusal (too large, not JSON).
    private func readBody(_ request: inout Request) async -> Result<JSONValue?, Refusal> {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: settings.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            return .failure(
                Refusal(Self.error(.contentTooLarge, "too_large", "the body is over http.max_body_bytes (\(settings.maxBodyBytes) bytes)")))
        } catch {
            return .failure(Refusal(Self.error(.badRequest, "invalid", "the body could not be read: \(error)")))
        }
        guard buffer.readableBytes > 0 else { return .success(JSONValue?.none) }
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            return .failure(
                Refusal(Self.error(.unsupportedMediaType, "unsupported_media_type", "send the body as application/json, not \(type)")))
        }
        do {
            return .success(try JSONValue(parsing: Array(buffer.readableBytesView)))
        } catch {
            return .failure(Refusal(Self.error(.badRequest, "invalid", "the body is not JSON: \(error)")))
        }
    }

    /// `offset` and `limit` are numbers and `enabled` a flag when they come in a query; the rest is text.
    static func queryValue(_ name: String, _ text: String) -> JSONValue {
        switch name {
        case "offset", "limit": Int(text).map { .integer($0) } ?? .string(text)
        case "enabled": text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
        default: .string(text)
        }
    }

    /// `/api/rooms/Living%20Room` → `["api", "rooms", "Living Room"]`; nil when it does not decode.
    static func pathParts(_ path: String) -> [String]? {
        var parts: [String] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = String(part).removingPercentEncoding else { return nil }
            parts.append(decoded)
        }
        return parts
    }

    // MARK: Answers

    /// An answer as a response: its data with 200 or 201; an error with the status of its kind; a
    /// change that could not be stored as 500 with kind `storage`.
    static func response(_ answer: Answer, created: Bool) -> Response {
        let data = answer.result.map(HomeJSON.json)
        switch answer {
        case .done: return response(data: data, error: nil, unstored: nil, created: created)
        case .refused(let error, _): return response(data: data, error: error, unstored: nil, created: created)
        case .notStored(_, let reason): return response(data: data, error: nil, unstored: reason, created: created)
        }
    }

    static func response(data: JSONValue?, error: HomeError?, unstored: String?, created: Bool) -> Response {
        if let unstored {
            var body: [String: JSONValue] = ["kind": "storage", "error": .string(HomeJSON.unstoredMessage(unstored))]
            body["data"] = data
            return json(.internalServerError, .object(body))
        }
        guard let error else { return json(created ? .created : .ok, data ?? [:]) }
        var body: [String: JSONValue] = ["error": .string(error.message), "kind": .string(error.kind.rawValue)]
        body["field"] = error.field.map { .string($0) }
        body["data"] = data
        return json(status(of: error.kind), .object(body))
    }

    static func status(of kind: HomeError.Kind) -> HTTPResponse.Status {
        switch kind {
        case .invalid: .badRequest
        case .notFound: .notFound
        case .conflict: .conflict
        case .unreachable, .busy: .serviceUnavailable
        }
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        var bytes = value.serializedBytes()
        bytes.append(UInt8(ascii: "\n"))
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func error(_ status: HTTPResponse.Status, _ kind: String, _ message: String, field: String? = nil) -> Response {
        var body: [String: JSONValue] = ["error": .string(message), "kind": .string(kind)]
        body["field"] = field.map { .string($0) }
        return json(status, .object(body))
    }

    static func methodNotAllowed(_ allowed: [HTTPRequest.Method]) -> Response {
        let names = Array(Set(allowed.map(\.rawValue))).sorted()
        var response = error(.methodNotAllowed, "method_not_allowed", "this path takes \(names.joined(separator: ", "))")
        response.headers[.allow] = names.joined(separator: ", ")
        return response
    }

    /// Compares in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return difference == 0
    }
}

/// A request refused before it reached a command, with its answer.
struct Refusal: Error {
    let response: Response
    init(_ response: Response) { self.response = response }
}

/// The HTTP settings the responder needs, the token revealed once here.
struct HTTPSettings: Sendable {
    var token: String?
    var corsOrigin: String?
    var maxBodyBytes: Int
}

/// A request's context: Hummingbird's, and the connection it came on (the event stream closes a
/// client that stops reading, and names it in the log).
struct APIRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let connection: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        connection = source.channel
    }
}

extension Channel {
    /// `address:port` of the other end, for log lines.
    var peer: String { remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?" }
}
