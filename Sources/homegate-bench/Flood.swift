import ArgumentParser
import CMosquitto

/// The publisher, run as its own process so it does not share the subscriber's CPU accounting.
struct Flood: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Publish N QoS 0 messages to bench/<i % 16> as fast as possible.")

    @Option var port: Int32
    @Option var messages = 200_000
    @Option var payloadBytes = 100

    func run() throws {
        _ = mosquitto_lib_init()
        let raw = mosquitto_new("bench-flood", true, nil)!
        mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        guard mosquitto_connect(raw, "127.0.0.1", port, 30) == 0 else { throw ValidationError("cannot connect to 127.0.0.1:\(port)") }
        mosquitto_loop_start(raw)
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: payloadBytes)
        let topics = (0..<16).map { "bench/\($0)" }
        for i in 0..<messages {
            let rc = payload.withUnsafeBytes {
                mosquitto_publish_v5(raw, nil, topics[i % 16], Int32($0.count), $0.baseAddress, 0, false, nil)
            }
            if rc != 0 { throw ValidationError("publish failed: \(rc)") }
        }
        // The DISCONNECT is queued behind every PUBLISH, so the broker has them all when it arrives.
        mosquitto_disconnect(raw)
        mosquitto_loop_stop(raw, false)
        mosquitto_destroy(raw)
    }
}
