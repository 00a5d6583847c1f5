import Foundation
import GatewayCore
import HAPQRCode
import HTTPTypes
import Hummingbird
import JSON
import NIOCore

/// The HomeKit bridge's pairing panel (`/api/homekit`): each bridge's setup code, QR code, state
/// and paired controllers, a new setup code, pairings removed, a new identity. It goes through `HomeKitControl`,
/// which `homegate run` gives when `hap.enabled` is true; without it the reads say the bridge is
/// off and the changes are refused with 409.
enum HomeKitRoutes {
    /// What each route does (these are not core commands), with its method and path.
    enum Action: String, CaseIterable, Sendable {
        case bridges = "homekit"
        case qrCode = "homekit/qr"
        case resetSetupCode = "homekit/setup_code"
        case resetIdentity = "homekit/identity"
        case removePairings = "homekit/remove_pairings"
        case removePairing = "homekit/remove_pairing"

        var route: Route {
            switch self {
            case .bridges: Route(.get, "/api/homekit", rawValue)
            case .qrCode: Route(.get, "/api/homekit/bridges/{number}/qr.svg", rawValue)
            case .resetSetupCode: Route(.post, "/api/homekit/bridges/{number}/setup-code", rawValue)
            case .resetIdentity: Route(.post, "/api/homekit/bridges/{number}/identity", rawValue)
            case .removePairings: Route(.delete, "/api/homekit/bridges/{number}/pairings", rawValue)
            case .removePairing: Route(.delete, "/api/homekit/bridges/{number}/pairings/{controller}", rawValue)
            }
        }
    }

    static let all: [Route] = Action.allCases.map(\.route)

    static let off = "the HomeKit bridge is off (hap.enabled: false)"

    static func respond(_ action: Action, _ fields: [String: String], control: (any HomeKitControl)?) async -> Response {
        guard let control else {
            if action == .bridges { return APIResponder.json(.ok, ["enabled": false, "bridges": []]) }
            return APIResponder.error(.conflict, "conflict", off)
        }
        do throws(HomeKitControlError) {
            switch action {
            case .bridges:
                let bridges = try await control.bridges()
                return APIResponder.json(.ok, ["enabled": true, "bridges": .array(bridges.map(json))])
            case .qrCode:
                return try await qrCode(control, try bridgeNumber(fields))
            case .resetSetupCode:
                return APIResponder.json(.ok, json(try await control.resetSetupCode(bridge: try bridgeNumber(fields))))
            case .resetIdentity:
                return APIResponder.json(.ok, json(try await control.resetIdentity(bridge: try bridgeNumber(fields))))
            case .removePairings:
                return APIResponder.json(.ok, json(try await control.removeAllPairings(bridge: try bridgeNumber(fields))))
            case .removePairing:
                let number = try bridgeNumber(fields)
                return APIResponder.json(.ok, json(try await control.removePairing(bridge: number, controller: fields["controller"] ?? "")))
            }
        } catch {
            switch error {
            case .notFound(let message): return APIResponder.error(.notFound, "not_found", message)
            case .conflict(let message): return APIResponder.error(.conflict, "conflict", message)
            case .failed(let message): return APIResponder.error(.internalServerError, "storage", message)
            }
        }
    }

    /// `1`, `2`, …: the path's bridge number.
    static func bridgeNumber(_ fields: [String: String]) throws(HomeKitControlError) -> Int {
        let text = fields["number"] ?? ""
        guard let number = Int(text), number >= 1 else {
            throw .notFound("no HomeKit bridge '\(text)' (bridges are numbered from 1)")
        }
        return number
    }

    /// The bridge's setup URI as a QR code, an SVG image.
    static func qrCode(_ control: any HomeKitControl, _ number: Int) async throws(HomeKitControlError) -> Response {
        let bridges = try await control.bridges()
        guard let bridge = bridges.first(where: { $0.number == number }) else {
            throw .notFound("no HomeKit bridge \(number) (this house has \(bridges.count == 1 ? "1 bridge" : "\(bridges.count) bridges"))")
        }
        guard let code = HAPQRCode(bridge.setupURI) else { throw .failed("cannot draw \(bridge.setupURI) as a QR code") }
        return Response(
            status: .ok,
            headers: [
                .contentType: "image/svg+xml", .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
                .contentSecurityPolicy: "default-src 'none'",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: code.svg())))
    }

    /// A bridge as the routes answer it (web/openapi.yaml's `HomeKitBridge`); `HomeKitControl` gives running ones.
    static func json(_ bridge: HomeKitBridgeStatus) -> JSONValue {
        var fields: [String: JSONValue] = [
            "number": .integer(bridge.number), "name": .string(bridge.name), "port": .integer(bridge.port),
            "device_id": .string(bridge.deviceID), "setup_code": .string(bridge.setupCode), "setup_uri": .string(bridge.setupURI),
            "configuration_number": .integer(bridge.configurationNumber),
            "paired": .bool(bridge.paired),
            "controllers": .array(bridge.controllers.map { ["id": .string($0.id), "admin": .bool($0.admin)] }),
        ]
        if let running = bridge.running {
            fields["accessories"] = .integer(running.accessories)
            fields["settled"] = .bool(running.settled)
            fields["advertisement"] = [
                "state": .string(running.advertisement.state.rawValue), "detail": .string(running.advertisement.detail),
            ]
        }
        return .object(fields)
    }
}
