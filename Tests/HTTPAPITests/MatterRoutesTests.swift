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

/// A Matter bridge on Google Home's fabric that remembers the window it was asked for.
final class FakeMatter: MatterControl {
    let state = Mutex(
        MatterBridgeStatus(
            serving: true, port: 5540, manualPairingCode: nil, qrCodePayload: nil, window: nil,
            fabrics: [.init(index: 1, label: "", vendorID: 0x6006, nodeID: 0xA1B2), .init(index: 2, label: "lab", vendorID: 0x4242, nodeID: 7)]))
    let asked = Mutex<Int?>(nil)
    /// What opening a window fails with, when it does (a verifier that cannot be made).
    let windowFailure: MatterControlError?

    init(windowFailure: MatterControlError? = nil) { self.windowFailure = windowFailure }

    func status() async throws(MatterControlError) -> MatterBridgeStatus { state.withLock { $0 } }

    func openWindow(seconds: Int) async throws(MatterControlError) -> MatterBridgeStatus {
        asked.withLock { $0 = seconds }
        if let windowFailure { throw windowFailure }
        return try state.withLock { state throws(MatterControlError) in
            if state.window != nil { throw .conflict("cannot open a commissioning window: a commissioning window is open already") }
            state.window = .init(discriminator: 1234, secondsLeft: seconds, manualPairingCode: "34970112332", qrCodePayload: "MT:Y.K908", openedHere: true)
            (state.manualPairingCode, state.qrCodePayload) = ("34970112332", "MT:Y.K908")
            return state
        }
    }

    func revokeWindow() async throws(MatterControlError) -> MatterBridgeStatus {
        try state.withLock { state throws(MatterControlError) in
            guard state.window != nil else { throw .notFound("no commissioning window is open") }
            (state.window, state.manualPairingCode, state.qrCodePayload) = (nil, nil, nil)
            return state
        }
    }

    func removeFabric(index: Int) async throws(MatterControlError) -> MatterBridgeStatus {
        try state.withLock { state throws(MatterControlError) in
            guard state.fabrics.contains(where: { $0.index == index }) else { throw .notFound("the Matter bridge belongs to no fabric \(index)") }
            state.fabrics.removeAll { $0.index == index }
            return state
        }
    }
}

@Suite("The Matter routes: the bridge's codes and fabrics, a commissioning window, a fabric removed; 400, 404 and 409")
struct MatterRoutesTests {
    static func application(_ matter: (any MatterControl)?) -> Application<RouterResponder<APIRequestContext>> {
        let api = APIResponder(
            access: InMemoryGateway(), settings: HTTPSettings(token: "secret", corsOrigin: nil, maxBodyBytes: 64 * 1024),
            files: StaticFiles(configured: FileManager.default.temporaryDirectory.path), metrics: MetricsExporter(),
            logger: Logger(label: "test"), matter: matter)
        return Application(router: APIRouter.make(api, events: EventFanOut(capacity: 1_000, logger: Logger(label: "test"))))
    }

    static let token: HTTPFields = [.authorization: "Bearer secret"]

    static func json(_ response: TestResponse) throws -> JSONValue { try JSONValue(parsing: Array(response.body.readableBytesView)) }

    @Test("with the bridge off: GET says so, the changes are 409")
    func off() async throws {
        try await Self.application(nil).test(.router) { client in
            try await client.execute(uri: "/api/matter", method: .get, headers: Self.token) { response in
                #expect(response.status == .ok)
                let body = try Self.json(response)
                #expect(body == ["enabled": false, "serving": false, "fabrics": []])
            }
            for (method, uri) in [
                (HTTPRequest.Method.post, "/api/matter/window"), (.delete, "/api/matter/window"), (.delete, "/api/matter/fabrics/1"),
                (.get, "/api/matter/qr.svg"),
            ] {
                try await client.execute(uri: uri, method: method, headers: Self.token) { response in
                    #expect(response.status == .conflict, "\(method) \(uri)")
                    let body = try Self.json(response)
                    #expect(body == ["error": "the Matter bridge is off (matter.enabled: false)", "kind": "conflict"])
                }
            }
        }
    }

    @Test("GET lists the fabrics with their ecosystems' names; no code while on a fabric with no window")
    func status() async throws {
        try await Self.application(FakeMatter()).test(.router) { client in
            try await client.execute(uri: "/api/matter", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/matter", method: .get, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(body["enabled"] == true && body["serving"] == true && body["port"] == 5540)
                #expect(body["manual_code"] == .null && body["window"] == .null)
                #expect(
                    body["fabrics"] == [
                        ["index": 1, "label": "", "vendor_id": 0x6006, "vendor_name": "Google Home", "node_id": "000000000000A1B2"],
                        ["index": 2, "label": "lab", "vendor_id": 0x4242, "vendor_name": .null, "node_id": "0000000000000007"],
                    ])
            }
            try await client.execute(uri: "/api/matter/qr.svg", method: .get, headers: Self.token) { #expect($0.status == .notFound) }
        }
    }

    @Test("a window: 15 minutes unless asked, 3 to 15, one at a time, its codes and QR, revoked")
    func window() async throws {
        let matter = FakeMatter()
        try await Self.application(matter).test(.router) { client in
            for bad in ["2", "16", "x", "5&minutes=6"] {
                try await client.execute(uri: "/api/matter/window?minutes=\(bad)", method: .post, headers: Self.token) { response in
                    #expect(response.status == .badRequest, "minutes=\(bad)")
                    let body = try Self.json(response)
                    #expect(body["kind"] == "invalid")
                }
            }
            try await client.execute(uri: "/api/matter/window?minutes=7", method: .post, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["manual_code"] == "34970112332")
                #expect(
                    body["window"] == [
                        "discriminator": 1234, "seconds_left": 420, "opened_by": "homegate", "manual_code": "34970112332", "qr_payload": "MT:Y.K908",
                    ])
            }
            #expect(matter.asked.withLock { $0 } == 420)
            try await client.execute(uri: "/api/matter/window", method: .post, headers: Self.token) { #expect($0.status == .conflict) }
            try await client.execute(uri: "/api/matter/qr.svg", method: .get, headers: Self.token) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/svg+xml")
                // Its title names the payload it draws: the page keeps it only for the code it shows.
                #expect(String(buffer: response.body).contains("<title>Matter setup code MT:Y.K908</title>"))
            }
            try await client.execute(uri: "/api/matter/window", method: .delete, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["window"] == .null)
            }
            try await client.execute(uri: "/api/matter/window", method: .delete, headers: Self.token) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/matter/window", method: .post, headers: Self.token) { #expect($0.status == .ok) }
            #expect(matter.asked.withLock { $0 } == 900)
        }
    }

    @Test("a fabric removed by its index; one it does not belong to is 404, one that is not 1 to 254 is 400")
    func removeFabric() async throws {
        try await Self.application(FakeMatter()).test(.router) { client in
            try await client.execute(uri: "/api/matter/fabrics/2", method: .delete, headers: Self.token) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok && body["fabrics"]?.arrayValue?.count == 1)
            }
            for index in ["2", "9"] {
                try await client.execute(uri: "/api/matter/fabrics/\(index)", method: .delete, headers: Self.token) { response in
                    let body = try Self.json(response)
                    #expect(response.status == .notFound && body["kind"] == "not_found", "fabric \(index)")
                }
            }
            for index in ["0", "x", "300", "1.5"] {
                try await client.execute(uri: "/api/matter/fabrics/\(index)", method: .delete, headers: Self.token) { response in
                    let body = try Self.json(response)
                    #expect(response.status == .badRequest && body["kind"] == "invalid" && body["field"] == "index", "fabric \(index)")
                }
            }
            try await client.execute(uri: "/api/matter/fabrics/1", method: .get, headers: Self.token) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "DELETE")
            }
        }
    }

    @Test("a failure of homegate's own (a window's verifier) is 500 internal, not storage")
    func failed() async throws {
        let matter = FakeMatter(windowFailure: .failed("cannot make the window's verifier: no randomness"))
        try await Self.application(matter).test(.router) { client in
            try await client.execute(uri: "/api/matter/window", method: .post, headers: Self.token) { response in
                #expect(response.status == .internalServerError)
                let body = try Self.json(response)
                #expect(body == ["error": "cannot make the window's verifier: no randomness", "kind": "internal"])
            }
        }
    }
}
