import Foundation
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Logging
import Testing

@testable import HTTPAPI

/// The routes on Hummingbird's router, driven without a socket (HummingbirdTesting's `.router`) over
/// the gateway's surface in memory (`InMemoryGateway`, a real core): the token, the status codes,
/// the JSON errors and the method handling are checked with no broker and no database.
@Suite("The HTTP routes without a socket: token, statuses, JSON errors, 405 with Allow")
struct RouterTests {
    static func application(token: String? = "secret") -> Application<RouterResponder<APIRequestContext>> {
        let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../web").standardizedFileURL
        let api = APIResponder(
            access: InMemoryGateway(), settings: HTTPSettings(token: token, corsOrigin: nil, maxBodyBytes: 64 * 1024),
            files: StaticFiles(configured: web.path), metrics: MetricsExporter(), logger: Logger(label: "test"))
        return Application(router: APIRouter.make(api, events: EventFanOut(capacity: 1_000, logger: Logger(label: "test"))))
    }

    static func json(_ response: TestResponse) throws -> JSONValue { try JSONValue(parsing: Array(response.body.readableBytesView)) }

    @Test("every API route needs the token; health and the API's document do not")
    func token() async throws {
        let app = Self.application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homes", method: .get) { response in
                let body = try Self.json(response)
                #expect(response.status == .unauthorized && response.headers[.wwwAuthenticate] == "Bearer")
                #expect(body["kind"] == "unauthorized")
            }
            try await client.execute(uri: "/api/homes", method: .get, headers: [.authorization: "Bearer wrong"]) { response in
                let body = try Self.json(response)
                #expect(body["error"] == "the token is not this gateway's")
            }
            try await client.execute(uri: "/api/homes", method: .get, headers: [.authorization: "Bearer secret"]) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                #expect(body["primary"] == "home")
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/openapi.yaml", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("a known path with another method is 405 with Allow; an unknown API path a JSON 404; bad bodies 400 and 415")
    func statuses() async throws {
        let app = Self.application(token: nil)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homes", method: .delete) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "GET, POST")
            }
            try await client.execute(uri: "/api/homes", method: HTTPRequest.Method("TRACE")!) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "GET, POST")
            }
            try await client.execute(uri: "/api/nothing/here", method: .get) { response in
                let body = try Self.json(response)
                #expect(response.status == .notFound && body["kind"] == "not_found")
            }
            try await client.execute(
                uri: "/api/rooms", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{not json")
            ) { response in
                let body = try Self.json(response)
                #expect(response.status == .badRequest && body["error"]?.stringValue?.hasPrefix("the body is not JSON") == true)
            }
            try await client.execute(uri: "/api/rooms", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "x"))
            {
                #expect($0.status == .unsupportedMediaType)
            }
            try await client.execute(
                uri: "/api/rooms", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}")
            ) {
                response in
                let body = try Self.json(response)
                #expect(response.status == .badRequest && body["kind"] == "invalid" && body["field"] == "name", "\(body)")
            }
            try await client.execute(uri: "/api/accessories/No%20Such%20Lamp/lightbulb/on", method: .get) { response in
                let body = try Self.json(response)
                #expect(response.status == .notFound, "percent-decoded, then looked up")
                #expect(body["error"]?.stringValue?.contains("No Such Lamp") == true, "\(body)")
            }
        }
    }
}
