import Gateway
import GatewayCore
import HAPBridge
import HAPQRCode
import JSON

/// The running homegate's `/api/matter` routes, as `homegate matter window`, `unpair` and `pairing`
/// call them when homegate holds the database (its bridge must make the change, and serve it at once).
struct MatterAPIClient {
    let client: LocalHTTPClient

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    func status() async throws -> JSONValue { try await call("GET", "/api/matter") }

    func openWindow(minutes: Int) async throws -> JSONValue { try await call("POST", "/api/matter/window?minutes=\(minutes)") }

    func removeFabric(_ index: Int) async throws -> JSONValue { try await call("DELETE", "/api/matter/fabrics/\(index)") }

    private func call(_ method: String, _ path: String) async throws -> JSONValue {
        let answer = try await client.send(method: method, path: path)
        let json = try? JSONValue(parsing: answer.body)
        guard answer.status == 200 else {
            let message = json?["error"]?.stringValue ?? String(decoding: answer.body.prefix(200), as: UTF8.self)
            if answer.status == 401 {
                throw Refused(description: "the running homegate refused the token (\(message)): the command reads http.token from the same configuration")
            }
            throw Refused(description: message)
        }
        guard let json else { throw Refused(description: "the running homegate's answer to \(method) \(path) is not JSON") }
        return json
    }
}

/// How the Matter commands print what `/api/matter` answers.
enum MatterPrinting {
    /// "2: Google Home (vendor 0x6006) 'Home', node 0x…"
    static func fabric(index: Int, vendorID: Int, label: String, nodeID: UInt64) -> String {
        let vendor = "0x" + String(vendorID, radix: 16, uppercase: true)
        let name = MatterBridgeStatus.Fabric.vendorNames[vendorID].map { "\($0) (vendor \(vendor))" } ?? "vendor \(vendor)"
        return "  \(index): \(name)\(label.isEmpty ? "" : " '\(label)'"), node 0x\(String(nodeID, radix: 16, uppercase: true))"
    }

    static func fabrics(_ status: JSONValue) -> [String] {
        (status["fabrics"]?.arrayValue ?? []).map {
            fabric(
                index: $0["index"]?.intValue ?? 0, vendorID: $0["vendor_id"]?.intValue ?? 0, label: $0["label"]?.stringValue ?? "",
                nodeID: UInt64($0["node_id"]?.stringValue ?? "", radix: 16) ?? 0)
        }
    }

    /// An open window's codes and time left, as `homegate matter window` and `pairing` print them.
    /// `codesAs` heads the code lines ("window's " beside the bridge's own code).
    static func window(_ window: JSONValue, codesAs prefix: String = "") {
        let left = window["seconds_left"]?.intValue ?? 0
        let time = "\(left / 60) min \(left % 60) s"
        guard let manual = window["manual_code"]?.stringValue, let qr = window["qr_payload"]?.stringValue else {
            print("commissioning window: open for \(time), opened by a fabric's controller (its code is shown there)")
            return
        }
        print("commissioning window: open for \(time) more (discriminator \(window["discriminator"]?.intValue ?? 0))")
        print("\(prefix)manual pairing code: \(manual)")
        print("\(prefix)QR code:             \(qr)")
        if let code = HAPQRCode(qr) { print(code.terminalText()) }
    }
}
