public import Automation
public import Foundation
public import Logging
public import Secrets

/// What `homegate run` needs, from `homegate.yaml` with `HOMEGATE_*` environment overrides.
public struct GatewayConfiguration: Sendable, Equatable {
    public struct MQTT: Sendable, Equatable {
        public var url = "mqtt://127.0.0.1:1883"
        public var clientID = "homegate"
        public var username: String?
        public var password: Secret?
        public var passwordFile: String?
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?
        public var tlsInsecure = false
        public var keepAlive = 30
        public var protocolVersion = ProtocolVersion.v5
        public var cleanSession = true
        /// The bridges' device lists (`<base>/bridge/devices`) on a second connection of their own
        /// (client id `<client_id>-lists`), so that device messages never wait behind one: a list
        /// is megabytes with a thousand devices, and a connection delivers in order. Off by default:
        /// apart, a list and the readings around it are no longer handled in the order published.
        public var listsConnection = false

        /// As `mqtt.protocol` spells it: `5` or `3.1.1`.
        public enum ProtocolVersion: String, Sendable, Equatable, CaseIterable {
            case v5 = "5"
            case v311 = "3.1.1"
        }

        public init(password: Secret? = nil) { self.password = password }
    }

    /// The HTTP API, its event stream and the web page.
    public struct HTTP: Sendable, Equatable {
        /// Where it listens: `host:port` (port 0: any free one), or nil (`off`).
        /// 8380 by default: 8080 is where Zigbee2MQTT's frontend usually listens.
        public var listen: HTTPAddress? = HTTPAddress(host: "127.0.0.1", port: HTTPAddress.defaultPort)
        /// Required of every request (`Authorization: Bearer …`) when set.
        public var token: Secret?
        public var tokenFile: String?
        /// The one origin whose pages may call the API from a browser (CORS); none by default.
        public var corsOrigin: String?
        /// Request bodies larger than this are refused (413).
        public var maxBodyBytes = 64 * 1024
        /// The web page's files; by default `../share/homegate/web` beside the executable, else `./web`.
        public var webRoot: String?

        public init() {}
    }

    /// The HomeKit bridge (HAP over IP): off unless enabled.
    public struct HAP: Sendable, Equatable {
        public var enabled = false
        /// The address the HAP server binds. Nil (the default): every interface, IPv6 and IPv4
        /// (`::` with IPv6-only off; `0.0.0.0` where the host has no IPv6), as Apple Home needs.
        public var bind: String?
        /// 0 picks a free port (fine for tests; a fixed one spares controllers a new lookup).
        public var port = 51826
        /// The bridge's name in Apple Home and its DNS-SD instance name.
        public var name = "homegate"
        /// `XXX-XX-XXX`; nil keeps the stored code, or makes a random one on the first start.
        public var setupCode: Secret?
        /// What Apple Home sees: accessories any of these name (all when empty), less those any of
        /// `exclude` names.
        public var include: [AccessorySelector] = []
        public var exclude: [AccessorySelector] = []

        /// The code's digits, for the HAP server only.
        public var revealedSetupCode: String? { setupCode?.reveal }

        public init() {}
    }

    /// The Matter bridge: off unless enabled.
    public struct Matter: Sendable, Equatable {
        public var enabled = false
        /// The UDP port (both stacks); 0 picks a free one (fine for tests). 5540 is Matter's own.
        public var port = 5540
        /// The bridge's name: its NodeLabel and the commissionable DNS-SD record's DN.
        public var name = "homegate"
        /// The setup passcode (1 to 99999998, not a trivial one); nil keeps the stored one, or makes a
        /// random one on the first start.
        public var passcode: Secret?
        /// The 12-bit discriminator; nil keeps the stored one, or picks one at random on the first start.
        public var discriminator: Int?
        /// What the Matter ecosystems see, as `hap.include` and `hap.exclude`.
        public var include: [AccessorySelector] = []
        public var exclude: [AccessorySelector] = []

        public init() {}
    }

    public struct Location: Sendable, Equatable {
        public var latitude: Double?
        public var longitude: Double?
        public var timeZone: String?

        public init() {}
    }

    public var mqtt = MQTT()
    public var baseTopic = "homegate"
    public var mappings = "./mappings"
    public var database = "./data/homegate.sqlite"
    public var http = HTTP()
    public var hap = HAP()
    public var matter = Matter()
    public var location = Location()
    /// trace, debug, info, notice, warning, error, critical.
    public var logLevel = Logger.Level.info
    /// `text` (one line each) or `json` (one JSON object per line).
    public var logFormat = LogFormat.text
    /// A level for one part of the gateway, over `logLevel` (`log_levels.mqtt: debug`).
    public var componentLogLevels: [LogComponent: Logger.Level] = [:]
    /// Device payloads larger than this are dropped and counted.
    public var maxPayloadBytes = 256 * 1024
    /// How late a timer or sun event missed while the gateway was down may still fire at start.
    public var missedGrace: TimeInterval = 0
    /// What loading noticed but did not refuse (an unknown HOMEGATE_* variable): logged at start.
    public var warnings: [String] = []

    public init() {}
}

/// A configuration value that cannot be used, with where it came from.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `homegate.yaml:3:8` or `HOMEGATE_MQTT_KEEPALIVE`.
    public var location: String
    public var key: String
    public var message: String

    public init(location: String, key: String, message: String) {
        self.location = location
        self.key = key
        self.message = message
    }

    public var description: String { "\(location): \(key): \(message)" }
}

extension GatewayConfiguration {
    /// The house's time zone and place for triggers: the configured time zone, or the system's.
    public var clockContext: ClockContext {
        let zone = location.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
        guard let latitude = location.latitude, let longitude = location.longitude else {
            return ClockContext(timeZone: zone, location: nil)
        }
        return ClockContext(timeZone: zone, location: Automation.Location(latitude: latitude, longitude: longitude, timeZone: zone))
    }
}

/// `127.0.0.1:8380`, `[::1]:8380`, `0.0.0.0:8380`, `localhost:8380`.
public struct HTTPAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// The web page's and HTTP API's port unless `http.listen` says otherwise.
    public static let defaultPort = 8380

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with an IPv6 host in brackets; nil when it is not one.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address goes in brackets
        }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    /// Only this machine can reach it.
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// How each log line is written.
public enum LogFormat: String, Sendable {
    /// `2026-11-24T15:06:10.412Z warning mqtt: broker connection lost reason=...`
    case text
    /// `{"time":"2026-11-24T15:06:10.412Z","level":"warning","component":"mqtt","message":"...","reason":"..."}`
    case json
}
