import Foundation
import GatewayCore
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Logging
import Synchronization
import Testing

@testable import HTTPAPI

/// A HomeKit bridge that remembers what it was asked, with one paired admin controller.
final class FakeHomeKit: HomeKitControl {
    let setupCodeConfigured: Bool
    let state: Mutex<HomeKitBridgeStatus>

    init(setupCodeConfigured: Bool = false) {
        self.setupCodeConfigured = setupCodeConfigured
        state = Mutex(
            HomeKitBridgeStatus(
                number: 1, name: "homegate", port: 51826, deviceID: "3C:5A:1F:0B:77:D2", setupCode: "482-17-395",
                setupURI: "X-HM://0026DMJ6L7F3A", configurationNumber: 3, accessories: 12,
                advertisement: HomeKitAdvertisement(.notAdvertised, detail: "avahi-daemon is not running"),
                controllers: [.init(id: "A B/1", admin: true)]))
    }

    private func bridge(_ number: Int) throws(HomeKitControlError) -> HomeKitBridgeStatus {
        guard number == 1 else { throw .notFound("no HomeKit bridge \(number) (this house has 1 bridge, numbered from 1)") }
        return state.withLock { $0 }
    }

    func bridges() async throws(HomeKitControlError) -> [HomeKitBridgeStatus] { [try bridge(1)] }

    func resetSetupCode(bridge number: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        _ = try bridge(number)
        if setupCodeConfigured { throw .conflict("hap.setup_code is set") }
        return state.withLock {
            $0.setupCode = "111-22-334"
            return $0
        }
    }

    func removePairing(bridge number: Int, controller: String) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        let current = try bridge(number)
        guard current.controllers.contains(where: { $0.id == controller }) else {
            throw .notFound("HomeKit bridge 1 has no paired controller '\(controller)'")
        }
        return state.withLock {
            $0.controllers.removeAll { $0.id == controller }
            return $0
        }
    }

    func removeAllPairings(bridge number: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        _ = try bridge(number)
        return state.withLock {
            $0.controllers = []
            return $0
        }
    }

    func resetIdentity(bridge number: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        _ = try bridge(number)
        return state.withLock {
            $0.deviceID = "5E:01:02:03:04:05"
            $0.controllers = []
            $0.configurationNumber = 1
            return $0
        }
    }
}

@Suite("The HomeKit routes: the bridge's state, QR code, setup code and pairings; 404 and 409")
struct HomeKitRoutesTests {
    static func application(_ homeKit: (any HomeKitControl)?) -> Application<RouterResponder<APIRequestContext>> {
        let api = APIResponder(
            access: InMemoryGateway(), settings: HTTPSettings(token: "secret", corsOrigin: nil, maxBodyBytes: 64 * 1024),
            files: StaticFiles(configured: FileManager.default.temporaryDirectory.path), metrics: MetricsExporter(),
            logger: Logger(label: "test"), homeKit: homeKit)
        return Application(router: APIRouter.make(api, events: EventFanOut(capacity: 1_000, logger: Logger(label: "test"))))
    }

    static let token: HTTPFields = [.authorization: "Bearer secret"]

    static func json(_ response: TestResponse) throws -> JSONValue { try JSONValue(parsing: Array(response.body.readableBytesView)) }

    @Test("with the bridge off: GET says so, the changes are 409 with how to turn it on")
    func off() async throws {
        let app = Self.application(nil)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homekit", method: .get, headers: Self.token) { response in
                #expect(response.status == .ok)
                let body = try Self.json(response)
                #expect(body == ["enabled": false, "bridges": []])
            }
            for (method, uri) in [
                (HTTPRequest.Method.post, "/api/homekit/bridges/1/setup-code"), (.post, "/api/homekit/bridges/1/identity"),
                (.delete, "/api/homekit/bridges/1/pairings"),
                (.delete, "/api/homekit/bridges/1/pairings/abc"), (.get, "/api/homekit/bridges/1/qr.svg"),
            ] {
                try await client.execute(uri: uri, method: method, headers: Self.token) { response in
                    let body = try Self.json(response)
                    #expect(response.status == .conflict, "\(method) \(uri)")
                    #expect(body == ["error": "the HomeKit bridge is off (hap.enabled: false)", "kind": "conflict"])
                }
            }
        }
    }

    @Test("the routes need the token, and a path they know with another method is 405")
    func tokenAndMethods() async throws {
        let app = Self.application(FakeHomeKit())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homekit", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/homekit/bridges/1/qr.svg", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/homekit/bridges/1/pairings", method: .get, headers: Self.token) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "DELETE")
            }
            try await client.execute(uri: "/api/homekit", method: .post, headers: Self.token) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "GET")
            }
        }
    }

    @Test("GET /api/homekit lists each bridge in the documented shape")
    func list() async throws {
        let app = Self.application(FakeHomeKit())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homekit", method: .get, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["enabled"] == true)
                let bridge = try #require(body["bridges"]?.arrayValue?.first)
                #expect(bridge["number"] == 1 && bridge["port"] == 51826 && bridge["setup_code"] == "482-17-395")
                #expect(bridge["paired"] == true && bridge["configuration_number"] == 3 && bridge["accessories"] == 12)
                #expect(bridge["advertisement"] == ["state": "not_advertised", "detail": "avahi-daemon is not running"])
                #expect(bridge["controllers"] == [["id": "A B/1", "admin": true]])
            }
        }
    }

    @Test("the QR code is an SVG image")
    func qrCode() async throws {
        let app = Self.application(FakeHomeKit())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homekit/bridges/1/qr.svg", method: .get, headers: Self.token) { response in
                let text = String(buffer: response.body)
                #expect(response.status == .ok && response.headers[.contentType] == "image/svg+xml")
                #expect(text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && !text.contains("script"))
            }
            try await client.execute(uri: "/api/homekit/bridges/2/qr.svg", method: .get, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .notFound && body["kind"] == "not_found")
            }
        }
    }

    @Test("an unknown bridge number or controller is a JSON 404; a controller id is percent-decoded")
    func notFound() async throws {
        let homeKit = FakeHomeKit()
        let app = Self.application(homeKit)
        try await app.test(.router) { client in
            for uri in ["/api/homekit/bridges/2/pairings", "/api/homekit/bridges/zero/pairings", "/api/homekit/bridges/0/pairings"] {
                try await client.execute(uri: uri, method: .delete, headers: Self.token) { response in
                    let body = try Self.json(response)
                    #expect(response.status == .notFound && body["kind"] == "not_found", "\(uri)")
                }
            }
            try await client.execute(uri: "/api/homekit/bridges/1/pairings/nobody", method: .delete, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .notFound)
                #expect(body["error"] == "HomeKit bridge 1 has no paired controller 'nobody'")
            }
            try await client.execute(uri: "/api/homekit/bridges/1/pairings/A%20B%2F1", method: .delete, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["paired"] == false && body["controllers"] == [])
            }
        }
    }

    @Test("a new identity is answered with the bridge: its new device id, no controller, c# 1; 404 for an unknown bridge")
    func identity() async throws {
        let app = Self.application(FakeHomeKit())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homekit/bridges/1/identity", method: .post, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["device_id"] == "5E:01:02:03:04:05")
                #expect(body["paired"] == false && body["controllers"] == [] && body["configuration_number"] == 1)
            }
            try await client.execute(uri: "/api/homekit/bridges/2/identity", method: .post, headers: Self.token) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("a new setup code is answered with the bridge; 409 while hap.setup_code is set")
    func setupCode() async throws {
        let app = Self.application(FakeHomeKit())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/homekit/bridges/1/setup-code", method: .post, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["setup_code"] == "111-22-334")
            }
        }
        let configured = Self.application(FakeHomeKit(setupCodeConfigured: true))
        try await configured.test(.router) { client in
            try await client.execute(uri: "/api/homekit/bridges/1/setup-code", method: .post, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .conflict && body["kind"] == "conflict")
            }
            try await client.execute(uri: "/api/homekit/bridges/1/pairings", method: .delete, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["paired"] == false)
            }
        }
    }
}
