import Foundation
import GatewayCore
import HAPQRCode
import HTTPTypes
import Hummingbird
import JSON
import NIOCore

/// The Matter bridge's pairing panel (`/api/matter`): its codes and QR code, the fabrics
/// (ecosystems) it belongs to, a commissioning window for another ecosystem, a fabric removed. It
/// goes through `MatterControl`, which `homegate run` gives when `matter.enabled` is true; without
/// it the read says the bridge is off and the changes are refused with 409, as `/api/homekit` does.
enum MatterRoutes {
    enum Action: String, CaseIterable, Sendable {
        case status = "matter"
        case qrCode = "matter/qr"
        case openWindow = "matter/window/open"
        case revokeWindow = "matter/window/revoke"
        case removeFabric = "matter/fabric/remove"

        var route: Route {
            switch self {
            case .status: Route(.get, "/api/matter", rawValue)
            case .qrCode: Route(.get, "/api/matter/qr.svg", rawValue)
            case .openWindow: Route(.post, "/api/matter/window", rawValue)
            case .revokeWindow: Route(.delete, "/api/matter/window", rawValue)
            case .removeFabric: Route(.delete, "/api/matter/fabrics/{index}", rawValue)
            }
        }
    }

    static let all: [Route] = Action.allCases.map(\.route)

    static let off = "the Matter bridge is off (matter.enabled: false)"
    /// A window's length when none is asked for, and the longest: 15 minutes (the specification's
    /// longest enhanced window); the shortest is 3.
    static let minutes = 3...15

    static func respond(
        _ action: Action, _ fields: [String: String], query: [(String, String)], control: (any MatterControl)?
    ) async -> Response {
        var minutes = Self.minutes.upperBound
        if action == .openWindow {
            let asked = windowMinutes(query)
            if let refusal = asked.refusal { return refusal }
            minutes = asked.minutes
        }
        var fabric = 0
        if action == .removeFabric {
            let text = fields["index"] ?? ""
            guard let index = Int(text), (1...254).contains(index) else {
                return APIResponder.error(
                    .badRequest, "invalid", "a fabric index is a whole number from 1 to 254 (GET /api/matter lists them), not '\(text)'",
                    field: "index")
            }
            fabric = index
        }
        guard let control else {
            if action == .status { return APIResponder.json(.ok, ["enabled": false, "serving": false, "fabrics": []]) }
            return APIResponder.error(.conflict, "conflict", off)
        }
        do throws(MatterControlError) {
            switch action {
            case .status: return APIResponder.json(.ok, json(try await control.status()))
            case .qrCode: return try await qrCode(control)
            case .openWindow: return APIResponder.json(.ok, json(try await control.openWindow(seconds: minutes * 60)))
            case .revokeWindow: return APIResponder.json(.ok, json(try await control.revokeWindow()))
            case .removeFabric: return APIResponder.json(.ok, json(try await control.removeFabric(index: fabric)))
            }
        } catch {
            switch error {
            case .notFound(let message): return APIResponder.error(.notFound, "not_found", message)
            case .conflict(let message): return APIResponder.error(.conflict, "conflict", message)
            case .failed(let message): return APIResponder.error(.internalServerError, "internal", message)
            }
        }
    }

    /// `?minutes=N` (3 to 15, 15 when not given), or the 400 a wrong one is.
    static func windowMinutes(_ query: [(String, String)]) -> (minutes: Int, refusal: Response?) {
        var asked: Int?
        for (name, value) in query where name != "access_token" {
            guard name == "minutes" else {
                return (0, APIResponder.error(.badRequest, "invalid", "unknown parameter \"\(name)\" (only \"minutes\")", field: name))
            }
            guard asked == nil else { return (0, APIResponder.error(.badRequest, "invalid", "\"minutes\" is given twice", field: name)) }
            guard let number = Int(value), minutes.contains(number) else {
                return (
                    0,
                    APIResponder.error(
                        .badRequest, "invalid", "minutes must be a whole number from 3 to 15 (a Matter window lasts 3 to 15 minutes), not '\(value)'",
                        field: "minutes"))
            }
            asked = number
        }
        return (asked ?? minutes.upperBound, nil)
    }

    /// The codes that commission the bridge now, as a QR code (an SVG image) whose title names its
    /// payload: the page asks for the code it read, and gets the one current when this answers.
    static func qrCode(_ control: any MatterControl) async throws(MatterControlError) -> Response {
        let status = try await control.status()
        guard status.serving else { throw .conflict("the Matter bridge does not serve yet (GET /api/health says why)") }
        guard let payload = status.qrCodePayload else {
            throw .notFound("the Matter bridge is on a fabric and no window of homegate's is open: open one (POST /api/matter/window) to add it to another ecosystem")
        }
        guard let code = HAPQRCode(payload) else { throw .failed("cannot draw \(payload) as a QR code") }
        return Response(
            status: .ok,
            headers: [
                .contentType: "image/svg+xml", .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
                .contentSecurityPolicy: "default-src 'none'",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: code.svg(title: "Matter setup code \(payload)"))))
    }

    /// The bridge as the routes answer it (web/openapi.yaml's `Matter`).
    static func json(_ status: MatterBridgeStatus) -> JSONValue {
        let window: JSONValue = status.window.map { window in
            [
                "discriminator": .integer(window.discriminator), "seconds_left": .integer(window.secondsLeft),
                "opened_by": .string(window.openedHere ? "homegate" : "controller"),
                "manual_code": window.manualPairingCode.map(JSONValue.string) ?? .null,
                "qr_payload": window.qrCodePayload.map(JSONValue.string) ?? .null,
            ]
        } ?? .null
        return [
            "enabled": true, "serving": .bool(status.serving), "port": status.port.map(JSONValue.integer) ?? .null,
            "manual_code": status.manualPairingCode.map(JSONValue.string) ?? .null,
            "qr_payload": status.qrCodePayload.map(JSONValue.string) ?? .null,
            "window": window,
            "fabrics": .array(
                status.fabrics.map { fabric in
                    [
                        "index": .integer(fabric.index), "label": .string(fabric.label), "vendor_id": .integer(fabric.vendorID),
                        "vendor_name": fabric.vendorName.map(JSONValue.string) ?? .null,
                        "node_id": .string(hex16(fabric.nodeID)),
                    ]
                }),
        ]
    }

    /// A node id as Matter writes it: 16 upper-case hex digits.
    static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}
