import Automation
import Foundation
import Logging
import Mosquitto
import Secrets
import Yams

extension GatewayConfiguration {
    /// One settable key: its dotted name in the file and how to apply a text value.
    struct Key: Sendable {
        enum Kind: Sendable { case string, integer, decimal, boolean, list }
        let name: String
        let kind: Kind
        let apply: @Sendable (inout GatewayConfiguration, String) -> String?  // nil, or what was wrong
        /// A list key's items, from a YAML sequence; `apply` takes them comma-separated (a variable).
        let applyItems: (@Sendable (inout GatewayConfiguration, [String]) -> String?)?

        init(name: String, kind: Kind, apply: @escaping @Sendable (inout GatewayConfiguration, String) -> String?) {
            self.name = name
            self.kind = kind
            self.apply = apply
            applyItems = nil
        }

        /// A key that takes a list: `[a, b]` in the file, `a,b` in its variable (or the file).
        init(name: String, items: @escaping @Sendable (inout GatewayConfiguration, [String]) -> String?) {
            self.name = name
            kind = .list
            applyItems = items
            apply = { config, text in
                items(&config, text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            }
        }

        /// `mqtt.password_file` → `HOMEGATE_MQTT_PASSWORD_FILE`.
        var environmentName: String { "HOMEGATE_" + name.uppercased().replacingOccurrences(of: ".", with: "_") }
    }

    static let keys: [Key] =
        [
            Key(name: "mqtt.url", kind: .string) { config, value in
                // Checked with the rest, so a wrong scheme is not reported only after everything else is fixed.
                do {
                    _ = try BrokerAddress(url: value)
                } catch {
                    return "\(error)"
                }
                config.mqtt.url = value
                return nil
            },
            text("mqtt.client_id") { $0.mqtt.clientID = $1 },
            text("mqtt.username") { $0.mqtt.username = $1 },
            text("mqtt.password") { $0.mqtt.password = Secret($1) },
            text("mqtt.password_file") { $0.mqtt.passwordFile = $1 },
            text("mqtt.ca_file") { $0.mqtt.caFile = $1 },
            text("mqtt.cert_file") { $0.mqtt.certFile = $1 },
            text("mqtt.key_file") { $0.mqtt.keyFile = $1 },
            boolean("mqtt.tls_insecure") { $0.mqtt.tlsInsecure = $1 },
            integer("mqtt.keepalive", 5...3600) { $0.mqtt.keepAlive = $1 },
            Key(name: "mqtt.protocol", kind: .string) { config, value in
                guard let version = GatewayConfiguration.MQTT.ProtocolVersion(rawValue: value) else {
                    return "expected 5 or 3.1.1, got '\(value)'"
                }
                config.mqtt.protocolVersion = version
                return nil
            },
            boolean("mqtt.clean_session") { $0.mqtt.cleanSession = $1 },
            boolean("mqtt.lists_connection") { $0.mqtt.listsConnection = $1 },
            Key(name: "base_topic", kind: .string) { config, value in
                guard !value.isEmpty, !value.contains(where: { "+#".contains($0) }), !value.hasSuffix("/") else {
                    return "expected a topic without wildcards or a trailing '/', got '\(value)'"
                }
                config.baseTopic = value
                return nil
            },
            text("mappings") { $0.mappings = $1 },
            text("database") { $0.database = $1 },
            Key(name: "http.listen", kind: .string) { config, value in
                if value == "off" {
                    config.http.listen = nil
                    return nil
                }
                guard let address = HTTPAddress(value) else {
                    return "expected host:port like 127.0.0.1:8380, [::1]:8380 or 0.0.0.0:8380, or off; got '\(value)'"
                }
                config.http.listen = address
                return nil
            },
            text("http.token") { $0.http.token = Secret($1) },
            text("http.token_file") { $0.http.tokenFile = $1 },
            Key(name: "http.cors_origin", kind: .string) { config, value in
                guard value == "*" || value.hasPrefix("http://") || value.hasPrefix("https://"), !value.hasSuffix("/") else {
                    return "expected an origin like https://home.example.com (no path, no trailing /), or *; got '\(value)'"
                }
                config.http.corsOrigin = value
                return nil
            },
            integer("http.max_body_bytes", 1024...(16 << 20)) { $0.http.maxBodyBytes = $1 },
            text("http.web_root") { $0.http.webRoot = $1 },
            boolean("hap.enabled") { $0.hap.enabled = $1 },
            Key(name: "hap.bind", kind: .string) { config, value in
                guard !value.isEmpty, HTTPAddress("\(value.contains(":") ? "[\(value)]" : value):0") != nil else {
                    return "expected an address to listen on like 0.0.0.0, 127.0.0.1 or ::; got '\(value)'"
                }
                config.hap.bind = value
                return nil
            },
            integer("hap.port", 0...65_535) { $0.hap.port = $1 },
            Key(name: "hap.name", kind: .string) { config, value in
                guard !value.isEmpty, value.utf8.count <= 63 else { return "expected a name of 1 to 63 bytes, got '\(value)'" }
                config.hap.name = value
                return nil
            },
            Key(name: "hap.setup_code", kind: .string) { config, value in
                // The full check (trivial codes) is the HAP module's, when the bridge starts.
                let digits = value.filter { $0 != "-" }
                guard digits.count == 8, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                    value.count == 8 || (value.count == 10 && Array(value)[3] == "-" && Array(value)[6] == "-")
                else { return "expected eight digits written XXX-XX-XXX" }  // the value is a secret: not echoed
                config.hap.setupCode = Secret(value)
                return nil
            },
            selectors("hap.include") { $0.hap.include = $1 },
            selectors("hap.exclude") { $0.hap.exclude = $1 },
            boolean("matter.enabled") { $0.matter.enabled = $1 },
            integer("matter.port", 0...65_535) { $0.matter.port = $1 },
            Key(name: "matter.name", kind: .string) { config, value in
                guard !value.isEmpty, value.utf8.count <= 32 else { return "expected a name of 1 to 32 bytes, got '\(value)'" }
                config.matter.name = value
                return nil
            },
            Key(name: "matter.passcode", kind: .string) { config, value in
                // The Matter module checks it again when the bridge starts; a secret, so never echoed.
                guard let number = Int(value), (1...99_999_998).contains(number) else {
                    return "expected a number from 1 to 99999998"
                }
                guard number % 11_111_111 != 0, number != 12_345_678, number != 87_654_321 else {
                    return "Matter forbids trivial passcodes (eight equal digits, or 1 to 8 in order either way): choose another"
                }
                config.matter.passcode = Secret(value)
                return nil
            },
            integer("matter.discriminator", 0...4095) { $0.matter.discriminator = $1 },
            selectors("matter.include") { $0.matter.include = $1 },
            selectors("matter.exclude") { $0.matter.exclude = $1 },
            decimal("location.latitude", -90...90) { $0.location.latitude = $1 },
            decimal("location.longitude", -180...180) { $0.location.longitude = $1 },
            Key(name: "location.time_zone", kind: .string) { config, value in
                guard TimeZone(identifier: value) != nil else {
                    return "unknown time zone '\(value)' (expected a name like Europe/Amsterdam)"
                }
                config.location.timeZone = value
                return nil
            },
            Key(name: "log_level", kind: .string) { config, value in
                guard let level = Logger.Level(rawValue: value) else { return levelProblem(value) }
                config.logLevel = level
                return nil
            },
            Key(name: "log_format", kind: .string) { config, value in
                guard let format = LogFormat(rawValue: value) else { return "expected text or json, got '\(value)'" }
                config.logFormat = format
                return nil
            },
        ]
        + LogComponent.allCases.map { component in
            Key(name: "log_levels.\(component.rawValue)", kind: .string) { config, value in
                guard let level = Logger.Level(rawValue: value) else { return levelProblem(value) }
                config.componentLogLevels[component] = level
                return nil
            }
        } + [
            integer("max_payload_bytes", 1...(16 << 20)) { $0.maxPayloadBytes = $1 },
            Key(name: "automation.missed_grace", kind: .string) { config, value in
                guard let seconds = DurationText.parse(value), seconds >= 0, seconds <= 7 * 86_400 else {
                    return "expected a duration from 0s to 7d like 15m, got '\(value)'"
                }
                config.missedGrace = seconds
                return nil
            },
        ]

    private static func levelProblem(_ value: String) -> String {
        "expected one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(value)'"
    }

    /// `hap.include`, `hap.exclude`, `matter.include`, `matter.exclude`: every selector that cannot be read is named.
    private static func selectors(
        _ name: String, _ set: @escaping @Sendable (inout GatewayConfiguration, [AccessorySelector]) -> Void
    ) -> Key {
        Key(name: name) { config, items in
            var selectors: [AccessorySelector] = []
            var problems: [String] = []
            for item in items {
                switch AccessorySelector.parse(item) {
                case .success(let selector): selectors.append(selector)
                case .failure(let problem): problems.append(problem.message)
                }
            }
            guard problems.isEmpty else { return problems.joined(separator: "; ") }
            set(&config, selectors)
            return nil
        }
    }

    private static func text(_ name: String, _ set: @escaping @Sendable (inout GatewayConfiguration, String) -> Void) -> Key {
        Key(name: name, kind: .string) { config, value in
            set(&config, value); return nil
        }
    }

    private static func boolean(_ name: String, _ set: @escaping @Sendable (inout GatewayConfiguration, Bool) -> Void) -> Key {
        Key(name: name, kind: .boolean) { config, value in
            switch value.lowercased() {
            case "true", "yes", "on", "1": set(&config, true)
            case "false", "no", "off", "0": set(&config, false)
            default: return "expected true or false, got '\(value)'"
            }
            return nil
        }
    }

    private static func integer(
        _ name: String, _ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout GatewayConfiguration, Int) -> Void
    ) -> Key {
        Key(name: name, kind: .integer) { config, value in
            guard let number = Int(value) else { return "expected a whole number, got '\(value)'" }
            guard range.contains(number) else { return "\(number) is outside \(range.lowerBound)...\(range.upperBound)" }
            set(&config, number)
            return nil
        }
    }

    private static func decimal(
        _ name: String, _ range: ClosedRange<Double>, _ set: @escaping @Sendable (inout GatewayConfiguration, Double) -> Void
    ) -> Key {
        Key(name: name, kind: .decimal) { config, value in
            guard let number = Double(value), number.isFinite else { return "expected a number, got '\(value)'" }
            guard range.contains(number) else { return "\(number) is outside \(range.lowerBound)...\(range.upperBound)" }
            set(&config, number)
            return nil
        }
    }
}
