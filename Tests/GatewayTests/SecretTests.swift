import Foundation
import Gateway
import Mosquitto
import MosquittoTesting
import Secrets
import Testing

@Suite("No password reaches a log, at any level", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(1)))
struct SecretTests {
    @Test("a secret prints as <redacted> however it is shown")
    func redacted() {
        let secret = Secret("hunter2")
        var dumped = ""
        dump(GatewayConfiguration.MQTT(password: secret), to: &dumped)
        for shown in ["\(secret)", String(reflecting: secret), dumped, "\(GatewayConfiguration.MQTT(password: secret))"] {
            #expect(!shown.contains("hunter2"), "\(shown)")
        }
        #expect(secret.reveal == "hunter2")
    }

    @Test("homegate run at debug level, connected with HOMEGATE_MQTT_PASSWORD and refused with password_file, never logs either")
    func neverInTheLog() async throws {
        let broker = try TestBroker(.init(users: ["homegate": "env-secret-7731"]))
        let mappings = broker.directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n".write(
            to: mappings.appendingPathComponent("zigbee2mqtt.yaml"), atomically: true, encoding: .utf8)
        let base = [
            "HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0", "HOMEGATE_MAPPINGS": mappings.path,
            "HOMEGATE_DATABASE": broker.database,
            "HOMEGATE_LOG_LEVEL": "trace", "HOMEGATE_MQTT_USERNAME": "homegate",
        ]

        let log = broker.directory.appendingPathComponent("connected.log")
        let pid = try spawn(
            [homegateExecutable, "run"], output: log.path, environment: base.merging(["HOMEGATE_MQTT_PASSWORD": "env-secret-7731"]) { $1 })
        let deadline = ContinuousClock.now + .seconds(15)
        var text = ""
        while !text.contains("mqtt: connected"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        kill(pid, SIGTERM)
        waitpid(pid, nil, 0)
        text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("mqtt: connected"), "\(text)")
        #expect(!text.contains("env-secret-7731"))

        let file = broker.directory.appendingPathComponent("mqtt_password")
        try "file-secret-9925\n".write(to: file, atomically: true, encoding: .utf8)
        let refused = try await homegate(["run"], environment: base.merging(["HOMEGATE_MQTT_PASSWORD_FILE": file.path]) { $1 })
        #expect(refused.status != 0)
        #expect(refused.output.contains("the broker refused the connection: Not authorized"), "\(refused.output)")
        #expect(!refused.output.contains("file-secret-9925"))
    }
}
