public import GatewayCore
import JSON

/// The running homegate's `/api/homekit` routes as `homegate hap reset-code` and `hap unpair` call
/// them when homegate holds the database: the requests, and the bridges read from the answers.
public enum HomeKitAPI {
    public struct Request: Sendable, Equatable {
        public var method: String
        public var path: String
    }

    /// Where to reach the HTTP API from this machine: `http.listen`, with a wildcard address
    /// replaced by loopback. Nil when the API is off or listens on any free port (unknown here).
    public static func address(_ listen: HTTPAddress?) -> HTTPAddress? {
        guard var address = listen, address.port != 0 else { return nil }
        switch address.host {
        case "0.0.0.0", "": address.host = "127.0.0.1"
        case "::": address.host = "::1"
        default: break
        }
        return address
    }

    public static let bridges = Request(method: "GET", path: "/api/homekit")

    public static func resetSetupCode(bridge number: Int) -> Request {
        Request(method: "POST", path: "/api/homekit/bridges/\(number)/setup-code")
    }

    public static func resetIdentity(bridge number: Int) -> Request {
        Request(method: "POST", path: "/api/homekit/bridges/\(number)/identity")
    }

    /// One controller's pairing, or every pairing when `controller` is nil.
    public static func unpair(bridge number: Int, controller: String?) -> Request {
        let path = "/api/homekit/bridges/\(number)/pairings"
        return Request(method: "DELETE", path: controller.map { path + "/" + percentEncoded($0) } ?? path)
    }

    /// A path segment: every byte but RFC 3986's unreserved characters as %XX.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                result += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 0xF)])"
            }
        }
        return result
    }

    /// The bridges of `GET /api/homekit`'s answer.
    public static func bridges(status: Int, body: [UInt8]) throws(BridgeError) -> [HomeKitBridgeStatus] {
        let json = try answer(status: status, body: body)
        guard let items = json["bridges"]?.arrayValue else { throw .api("the answer of GET /api/homekit has no bridges list") }
        var bridges: [HomeKitBridgeStatus] = []
        for (index, item) in items.enumerated() { bridges.append(try bridge(item, at: "bridges[\(index)]")) }
        return bridges
    }

    /// The bridge a `POST …/setup-code` or `DELETE …/pairings…` answers with.
    public static func bridge(status: Int, body: [UInt8]) throws(BridgeError) -> HomeKitBridgeStatus {
        try bridge(try answer(status: status, body: body), at: "the answer")
    }

    /// The JSON of a 200 answer; otherwise the API's `{"error": …}` as an error (404: `.notFound`).
    static func answer(status: Int, body: [UInt8]) throws(BridgeError) -> JSONValue {
        let json = try? JSONValue(parsing: body)
        guard status == 200 else {
            let message = json?["error"]?.stringValue ?? String(decoding: body.prefix(200), as: UTF8.self)
            switch status {
            case 404: throw .notFound(message)
            case 401:
                throw .api("the running homegate refused the token (\(message)): the command reads http.token from the same configuration")
            default: throw .api("the running homegate answered \(status): \(message)")
            }
        }
        guard let json else { throw .api("the running homegate's answer is not JSON") }
        return json
    }

    static func bridge(_ json: JSONValue, at place: String) throws(BridgeError) -> HomeKitBridgeStatus {
        guard let number = json["number"]?.intValue, let code = json["setup_code"]?.stringValue,
            let uri = json["setup_uri"]?.stringValue
        else { throw .api("\(place): a bridge needs number, setup_code and setup_uri") }
        var controllers: [HomeKitBridgeStatus.Controller] = []
        for item in json["controllers"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue else { throw .api("\(place).controllers: a controller without an id") }
            controllers.append(.init(id: id, admin: item["admin"]?.boolValue ?? false))
        }
        var running: HomeKitBridgeStatus.Running?
        if let accessories = json["accessories"]?.intValue, let state = json["advertisement"]?["state"]?.stringValue,
            let advertised = HomeKitAdvertisement.State(rawValue: state)
        {
            running = .init(
                accessories: accessories, settled: json["settled"]?.boolValue ?? true,
                advertisement: HomeKitAdvertisement(advertised, detail: json["advertisement"]?["detail"]?.stringValue ?? ""))
        }
        return HomeKitBridgeStatus(
            number: number, name: json["name"]?.stringValue ?? "", port: json["port"]?.intValue ?? 0,
            deviceID: json["device_id"]?.stringValue ?? "", setupCode: code, setupURI: uri,
            configurationNumber: json["configuration_number"]?.intValue ?? 0, controllers: controllers, running: running)
    }
}
