import Foundation
import MosquittoTesting
import Testing

@Suite("homegate doctor", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct DoctorTests {
    @Test("next to a running house: every check passes, the bridge and the running gateway are found, exit 0")
    func healthyHouse() async throws {
        let house = try await House()
        defer { house.stop() }
        let result = try await homegate(
            ["doctor"],
            environment: [
                "HOMEGATE_MQTT_URL": house.broker.url, "HOMEGATE_MAPPINGS": house.mappings.path, "HOMEGATE_DATABASE": house.broker.database,
                "TZ": "Europe/Amsterdam", "HOMEGATE_LOCATION_LATITUDE": "52.37", "HOMEGATE_LOCATION_LONGITUDE": "4.9",
            ])
        #expect(result.status == 0, "\(result.output)")
        for line in [
            "pass  settings     defaults and HOMEGATE_* variables: no problems",
            "pass  mappings     \(house.mappings.path): 4 files valid: 1 Zigbee2MQTT bridge (7 device overrides), 4 MQTT accessories",
            "pass  broker       connected to \(house.broker.url) without a user name (MQTT 5)",
            "pass  zigbee2mqtt  zigbee2mqtt: online, ",
            "info  gateway      a homegate is running on homegate and is ready",
            "pass  database     \(house.broker.database) can be written; ",
            "pass  time zone    Europe/Amsterdam (from TZ): it is ",
            "pass  location     52.37, 4.9: next sunrise ",
            "no problems",
        ] {
            #expect(result.output.contains(line), "missing: \(line)\n\(result.output)")
        }
    }

    @Test("a wrong password, a missing mappings folder, no bridge and no zone: each a line with a hint, exit 1, no secret printed")
    func problems() async throws {
        let broker = try TestBroker(.init(users: ["homegate": "right-secret-4411"]))
        let folder = broker.directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "source: zigbee2mqtt\nbase_topic: upstairs\n".write(
            to: folder.appendingPathComponent("z2m.yaml"), atomically: true, encoding: .utf8)
        let base = [
            "HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_MQTT_USERNAME": "homegate", "HOMEGATE_DATABASE": broker.database,
            "HOMEGATE_MAPPINGS": folder.path, "TZ": "UTC",
        ]

        let connected = try await homegate(
            ["doctor", "--timeout", "3"], environment: base.merging(["HOMEGATE_MQTT_PASSWORD": "right-secret-4411"]) { $1 })
        #expect(connected.status == 0, "warnings only: \(connected.output)")
        for line in [
            "pass  broker       connected to \(broker.url) as homegate (MQTT 5)",
            "warn  zigbee2mqtt  nothing on upstairs/bridge/devices",
            "hint: is Zigbee2MQTT running on this broker, with base_topic upstairs?",
            "info  gateway      no homegate answers on homegate/request/health",
            " (TZ): timers and time conditions run in UTC",
            "warn  location     not set: sunrise and sunset triggers and conditions cannot be used",
            "no problems (3 warnings)",
        ] {
            #expect(connected.output.contains(line), "missing: \(line)\n\(connected.output)")
        }

        let refused = try await homegate(
            ["doctor", "--timeout", "3"],
            environment: base.merging([
                "HOMEGATE_MQTT_PASSWORD": "wrong-secret-9902", "HOMEGATE_MAPPINGS": folder.appendingPathComponent("missing").path,
            ]) { $1 })
        #expect(refused.status == 1)
        for line in [
            "fail  mappings     no folder at \(folder.path)/missing",
            "fail  broker       \(broker.url): the broker refused the connection: Not authorized",
            "hint: check mqtt.username and mqtt.password (or mqtt.password_file)",
            "2 problems, 2 warnings",
        ] {
            #expect(refused.output.contains(line), "missing: \(line)\n\(refused.output)")
        }
        #expect(!refused.output.contains("wrong-secret-9902") && !connected.output.contains("right-secret-4411"))
    }

    @Test("settings with mistakes: each named, and nothing else is tried")
    func badSettings() async throws {
        let result = try await homegate(["doctor"], environment: ["HOMEGATE_MQTT_URL": "http://broker:1883", "HOMEGATE_LOG_FORMAT": "xml"])
        #expect(result.status == 1)
        #expect(result.output.contains("fail  settings     HOMEGATE_MQTT_URL: mqtt.url: "), "\(result.output)")
        #expect(
            result.output.contains("fail  settings     HOMEGATE_LOG_FORMAT: log_format: expected text or json, got 'xml'"),
            "\(result.output)")
        #expect(!result.output.contains("  broker  ") && !result.output.contains("  mappings  "), "\(result.output)")
    }

    @Test("a database on a nearly full disk fails, with the space left", .enabled(if: SmallDisk.available))
    func fullDisk() async throws {
        let disk = try SmallDisk(under: FileManager.default.temporaryDirectory, megabytes: 1)
        defer { disk.unmount() }
        let result = try await homegate(
            ["doctor", "--timeout", "1"],
            environment: [
                "HOMEGATE_DATABASE": disk.path.appendingPathComponent("homegate.sqlite").path, "HOMEGATE_MQTT_URL": "mqtt://127.0.0.1:1",
            ])
        #expect(result.status == 1)
        #expect(
            result.output.contains(
                "fail  database     \(disk.path.path)/homegate.sqlite will be created at the first start, but only 1 MB is free"),
            "\(result.output)")
        #expect(result.output.contains("hint: free some space"))
    }
}
