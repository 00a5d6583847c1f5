import Foundation
import Mosquitto
import MosquittoTesting
import Testing

@Suite("homegate run as a process against a real mosquitto", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct RunTests {
    @Test("online while running, offline after SIGTERM, exit status 0")
    func gracefulStop() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let watch = try await watcher(broker, "homegate/bridge/state")
        let pid = try spawn(
            [homegateExecutable, "run"], output: broker.directory.appendingPathComponent("homegate.out").path,
            environment: ["HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0", "HOMEGATE_DATABASE": broker.database])
        let online = await awaitMessages(watch) { $0.contains { $0.payloadString == #"{"state":"online"}"# } }
        #expect(online.last?.payloadString == #"{"state":"online"}"#)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0)
        let offline = await awaitMessages(watch) { $0.contains { $0.payloadString == #"{"state":"offline"}"# } }
        #expect(offline.last?.payloadString == #"{"state":"offline"}"#)
        await watch.shutdown()
    }

    @Test("kill -9 leaves the retained offline will")
    func killed() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        let watch = try await watcher(broker, "homegate/bridge/state")
        let pid = try spawn(
            [homegateExecutable, "run"], output: "/dev/null",
            environment: ["HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0", "HOMEGATE_DATABASE": broker.database])
        _ = await awaitMessages(watch) { $0.contains { $0.payloadString == #"{"state":"online"}"# } }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let will = await awaitMessages(watch) { $0.contains { $0.payloadString == #"{"state":"offline"}"# } }
        #expect(will.last?.payloadString == #"{"state":"offline"}"#)
        // A later subscriber still sees offline: the will is retained.
        let late = try await watcher(broker, "homegate/bridge/state")
        let retained = await awaitMessages(late) { !$0.isEmpty }
        #expect(retained.first?.payloadString == #"{"state":"offline"}"# && retained.first?.retain == true)
        await watch.shutdown()
        await late.shutdown()
    }

    @Test("a wrong password stops the gateway with the broker's reason instead of retrying")
    func refused() async throws {
        let broker = try TestBroker(.init(users: ["homegate": "right"]))
        defer { withExtendedLifetime(broker) {} }
        let output = broker.directory.appendingPathComponent("homegate.out").path
        let pid = try spawn(
            [homegateExecutable, "run"], output: output,
            environment: [
                "HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0", "HOMEGATE_DATABASE": broker.database,
                "HOMEGATE_MQTT_USERNAME": "homegate",
                "HOMEGATE_MQTT_PASSWORD": "wrong",
            ])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status != 0)
        let log = try String(contentsOfFile: output, encoding: .utf8)
        #expect(log.contains("refused the connection"), "\(log)")
    }

    @Test("a broken configuration exits 78 naming each problem")
    func badConfiguration() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let pid = try spawn(
            [homegateExecutable, "run"], output: output, environment: ["HOMEGATE_MQTT_URL": "http://x", "HOMEGATE_MQTT_KEEPALIVE": "0"])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status >> 8 == 78)
        let log = try String(contentsOfFile: output, encoding: .utf8)
        #expect(log.contains("HOMEGATE_MQTT_KEEPALIVE: mqtt.keepalive: 0 is outside 5...3600"), "\(log)")
    }
}
