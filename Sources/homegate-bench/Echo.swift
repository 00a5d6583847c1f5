import ArgumentParser
import CMosquitto

/// The floor of the tail benchmark: a trivial client that republishes every message it receives on
/// one topic to another, unparsed, from libmosquitto's own callback. Runs as its own process, as
/// homegate does, until it is signalled.
struct Echo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Republish every message on --from to --to (the broker-only floor for `tail`).")

    @Option var port: Int32
    @Option var from: String
    @Option var to: String

    func run() throws {
        _ = mosquitto_lib_init()
        let route = Unmanaged.passRetained(EchoRoute(from: from, to: to))
        guard let raw = mosquitto_new("bench-echo", true, route.toOpaque()) else { throw ValidationError("mosquitto_new failed") }
        mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_v5_callback_set(raw) { mosq, context, _, _, _ in
            let route = Unmanaged<EchoRoute>.fromOpaque(context!).takeUnretainedValue()
            mosquitto_subscribe_v5(mosq, nil, route.from, 0, 0, nil)
        }
        mosquitto_message_v5_callback_set(raw) { mosq, context, message, _ in
            guard let message else { return }
            let route = Unmanaged<EchoRoute>.fromOpaque(context!).takeUnretainedValue()
            mosquitto_publish_v5(mosq, nil, route.to, message.pointee.payloadlen, message.pointee.payload, 0, false, nil)
        }
        guard mosquitto_connect(raw, "127.0.0.1", port, 30) == 0 else { throw ValidationError("cannot connect to 127.0.0.1:\(port)") }
        _ = mosquitto_loop_forever(raw, -1, 1)
    }
}

final class EchoRoute {
    let from: String
    let to: String
    init(from: String, to: String) { (self.from, self.to) = (from, to) }
}
