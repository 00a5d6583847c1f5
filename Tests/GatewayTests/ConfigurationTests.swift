import Foundation
import Gateway
import Logging
import Mosquitto
import MosquittoTesting
import Secrets
import Testing

@Suite("homegate.yaml and HOMEGATE_* variables")
struct ConfigurationTests {
    private func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-\(UUID().uuidString).yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("no file and no variables gives the documented defaults")
    func defaults() throws {
        let configuration = try GatewayConfiguration.load(path: nil, environment: [:])
        #expect(configuration.mqtt.url == "mqtt://127.0.0.1:1883")
        #expect(configuration.baseTopic == "homegate")
        #expect(configuration.mappings == "./mappings")
        #expect(configuration.maxPayloadBytes == 262_144)
    }

    @Test("the file sets nested keys and the environment overrides them")
    func fileThenEnvironment() throws {
        let path = try write(
            """
            mqtt:
              url: mqtt://broker.lan:1884
              client_id: gw1
              keepalive: 15
              protocol: 3.1.1
            base_topic: house
            http: { listen: "[::1]:8081" }
            location: { latitude: 52.37, longitude: 4.9, time_zone: Europe/Amsterdam }
            """)
        let configuration = try GatewayConfiguration.load(
            path: path, environment: ["HOMEGATE_BASE_TOPIC": "home2", "HOMEGATE_MQTT_KEEPALIVE": "60"])
        #expect(configuration.mqtt.url == "mqtt://broker.lan:1884")
        #expect(configuration.mqtt.clientID == "gw1")
        #expect(configuration.mqtt.keepAlive == 60)
        #expect(configuration.mqtt.protocolVersion == .v311)
        #expect(configuration.baseTopic == "home2")
        #expect(configuration.http.listen == HTTPAddress(host: "::1", port: 8081))
        #expect(configuration.location.timeZone == "Europe/Amsterdam")
    }

    @Test("every mistake is reported at once, with its line and column or variable")
    func errors() throws {
        let path = try write(
            """
            mqtt:
              url: mqtt://broker
              keepalve: 15
              clean_session: maybe
            base_topic: "home/#"
            location: { latitude: 123, time_zone: Mars/Olympus }
            """)
        #expect {
            try GatewayConfiguration.load(path: path, environment: ["HOMEGATE_MQTT_PROTOCOL": "4", "HOMEGATE_MAPPING": "x"])
        } throws: { error in
            let lines = (error as? ConfigurationErrors)?.errors.map(\.description) ?? []
            return lines == [
                "\(path):3:3: mqtt.keepalve: unknown key (did you mean 'mqtt.keepalive'?)",
                "\(path):4:3: mqtt.clean_session: expected true or false, got 'maybe'",
                "\(path):5:1: base_topic: expected a topic without wildcards or a trailing '/', got 'home/#'",
                "\(path):6:13: location.latitude: 123.0 is outside -90.0...90.0",
                "\(path):6:28: location.time_zone: unknown time zone 'Mars/Olympus' (expected a name like Europe/Amsterdam)",
                "HOMEGATE_MQTT_PROTOCOL: mqtt.protocol: expected 5 or 3.1.1, got '4'",
            ]
        }
    }

    @Test("matter.passcode: out of range or one Matter forbids is refused, and the passcode (a secret) is never repeated")
    func matterPasscode() throws {
        for passcode in ["0", "99999999", "11111111", "12345678", "87654321", "four"] {
            #expect {
                try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_MATTER_PASSCODE": passcode])
            } throws: { error in
                let lines = (error as? ConfigurationErrors)?.errors.map(\.description) ?? []
                return lines.count == 1 && lines[0].hasPrefix("HOMEGATE_MATTER_PASSCODE: matter.passcode: ") && !lines[0].contains(passcode)
            }
        }
        let configuration = try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_MATTER_PASSCODE": "20202021"])
        #expect(configuration.matter.passcode != nil)
    }

    @Test("log_format and per-component log_levels: from the file and the environment, with mistakes named")
    func logSettings() throws {
        let good = try write(
            """
            log_level: warning
            log_format: json
            log_levels: { mqtt: debug, automation: info }
            """)
        let configuration = try GatewayConfiguration.load(path: good, environment: ["HOMEGATE_LOG_LEVELS_STORE": "error"])
        #expect(configuration.logFormat == .json)
        #expect(configuration.componentLogLevels == [.mqtt: .debug, .automation: .info, .store: .error])
        let bad = try write(
            """
            log_format: yaml
            log_levels: { mqtt: loud, radio: debug }
            """)
        #expect {
            try GatewayConfiguration.load(path: bad, environment: [:])
        } throws: { error in
            let lines = (error as? ConfigurationErrors)?.errors.map(\.description) ?? []
            return lines == [
                "\(bad):1:1: log_format: expected text or json, got 'yaml'",
                "\(bad):2:15: log_levels.mqtt: expected one of trace, debug, info, notice, warning, error, critical, got 'loud'",
                "\(bad):2:27: log_levels.radio: unknown component (expected one of gateway, mqtt, mappings, devices, api, automation, store, http, hap, matter)",
            ]
        }
    }

    @Test("unknown HOMEGATE_* variables (a platform's own) are warnings with a suggestion, not errors; empty ones are unset")
    func platformVariables() throws {
        let configuration = try GatewayConfiguration.load(
            path: nil,
            environment: [
                "HOMEGATE_PORT": "tcp://10.0.0.1:8080", "HOMEGATE_SERVICE_HOST": "10.0.0.1", "HOMEGATE_MAPPING": "x",
                "HOMEGATE_LOCATION_LATITUDE": "", "HOMEGATE_LOCATION_LONGITUDE": "",
            ])
        #expect(
            configuration.warnings == [
                "HOMEGATE_MAPPING is not a setting and is ignored (did you mean 'HOMEGATE_MAPPINGS'?)",
                // A Kubernetes service variable; the suggestion is the nearest setting's name (hap.port).
                "HOMEGATE_PORT is not a setting and is ignored (did you mean 'HOMEGATE_HAP_PORT'?)",
                "HOMEGATE_SERVICE_HOST is not a setting and is ignored",
            ])
        #expect(configuration.location.latitude == nil && configuration.mappings == "./mappings")
    }

    @Test("the names compose read before 0.7.0 (MQTT_URL, MQTT_USERNAME, MQTT_CLIENT_ID) still work, with a warning; HOMEGATE_* wins")
    func formerNames() throws {
        let configuration = try GatewayConfiguration.load(
            path: nil, environment: ["MQTT_URL": "mqtt://10.0.0.2:1883", "MQTT_USERNAME": "old", "HOMEGATE_MQTT_USERNAME": "new"])
        #expect(configuration.mqtt.url == "mqtt://10.0.0.2:1883" && configuration.mqtt.username == "new")
        #expect(
            configuration.warnings == [
                "MQTT_URL is the name compose.existing-broker.yaml read before 0.7.0; it is used for mqtt.url this time: rename it HOMEGATE_MQTT_URL in .env"
            ])
        #expect(GatewayConfiguration().http.listen == HTTPAddress(host: "127.0.0.1", port: 8380))
    }

    @Test("an empty password file is no password (compose mounts one for an anonymous broker)")
    func emptyPasswordFile() throws {
        let configuration = try GatewayConfiguration.load(
            path: nil, environment: ["HOMEGATE_MQTT_PASSWORD_FILE": try write(""), "HOMEGATE_MQTT_PASSWORD": "inline"])
        #expect(configuration.mqtt.password == "inline")
    }

    @Test("the password can come from a file, without its trailing newline")
    func passwordFile() throws {
        let secret = try write("s3cret\n")
        let configuration = try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_MQTT_PASSWORD_FILE": secret])
        #expect(configuration.mqtt.password == "s3cret")
        #expect(throws: ConfigurationErrors.self) {
            try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_MQTT_PASSWORD_FILE": "/nonexistent"])
        }
    }

    @Test("broken YAML and a missing file are errors that name the file")
    func unreadable() throws {
        let path = try write("mqtt: [unclosed\n")
        #expect { try GatewayConfiguration.load(path: path, environment: [:]) } throws: {
            "\($0)".contains(path) && "\($0)".contains("not valid YAML")
        }
        #expect { try GatewayConfiguration.load(path: "/nonexistent.yaml", environment: [:]) } throws: {
            "\($0)".contains("/nonexistent.yaml")
        }
    }
}

@Suite("homegate run finds its configuration")
struct ConfigurationFileTests {
    @Test("HOMEGATE_CONFIG names the file; a broken one stops homegate with the file's position")
    func configFromEnvironment() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-\(UUID().uuidString).yaml").path
        try "mqtt:\n  url: mqtt://127.0.0.1:1\n  keepalive: abc\n".write(toFile: file, atomically: true, encoding: .utf8)
        let output = file + ".out"
        let pid = try spawn([homegateExecutable, "run"], output: output, environment: ["HOMEGATE_CONFIG": file])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status >> 8 == 78)
        let log = try String(contentsOfFile: output, encoding: .utf8)
        #expect(log.contains("\(file):3:3: mqtt.keepalive: expected a whole number, got 'abc'"), "\(log)")
    }

    @Test(
        "homegate run's checks come all at once: a broker URL with the wrong scheme, a latitude out of range (not 'set both'), no mappings folder"
    )
    func allAtOnce() throws {
        #expect {
            try GatewayConfiguration.loadForRun(
                path: nil,
                environment: [
                    "HOMEGATE_MQTT_URL": "http://broker.lan", "HOMEGATE_LOCATION_LATITUDE": "152.37",
                    "HOMEGATE_MAPPINGS": "/nonexistent/mappings",
                ])
        } throws: { error in
            let lines = (error as? ConfigurationErrors)?.errors.map(\.description) ?? []
            return lines.count == 3
                && lines[0].hasPrefix("HOMEGATE_MQTT_URL: mqtt.url: invalid broker URL 'http://broker.lan'")
                && lines[1] == "HOMEGATE_LOCATION_LATITUDE: location.latitude: 152.37 is outside -90.0...90.0"
                && lines[2]
                    == "HOMEGATE_MAPPINGS: mappings: no folder at '/nonexistent/mappings' (create it, or point mappings at your mapping files)"
        }
    }
}
