import ArgumentParser
import CMosquitto

/// The benchmark's reference processes (`echo`, `relay`, `fanout`) as one bare libmosquitto
/// client: it subscribes to its filters once connected and hands every message to `receive` on
/// libmosquitto's own thread, with nothing between them, until the process is signalled.
final class BareClient {
    let filters: [String]
    let receive: (OpaquePointer?, UnsafePointer<mosquitto_message>) -> Void

    init(filters: [String], receive: @escaping (OpaquePointer?, UnsafePointer<mosquitto_message>) -> Void) {
        self.filters = filters
        self.receive = receive
    }

    convenience init(filter: String, receive: @escaping (OpaquePointer?, UnsafePointer<mosquitto_message>) -> Void) {
        self.init(filters: [filter], receive: receive)
    }

    /// Connects to 127.0.0.1:`port` as `id` and runs libmosquitto's loop on this thread; returns
    /// only if it cannot connect.
    func run(id: String, port: Int32) throws {
        _ = mosquitto_lib_init()
        let context = Unmanaged.passRetained(self)
        guard let raw = mosquitto_new(id, true, context.toOpaque()) else { throw ValidationError("mosquitto_new failed") }
        mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_v5_callback_set(raw) { mosq, context, _, _, _ in
            let client = Unmanaged<BareClient>.fromOpaque(context!).takeUnretainedValue()
            for filter in client.filters { mosquitto_subscribe_v5(mosq, nil, filter, 0, 0, nil) }
        }
        mosquitto_message_v5_callback_set(raw) { mosq, context, message, _ in
            guard let message else { return }
            Unmanaged<BareClient>.fromOpaque(context!).takeUnretainedValue().receive(mosq, message)
        }
        guard mosquitto_connect(raw, "127.0.0.1", port, 30) == 0 else { throw ValidationError("cannot connect to 127.0.0.1:\(port)") }
        _ = mosquitto_loop_forever(raw, -1, 1)
    }
}
