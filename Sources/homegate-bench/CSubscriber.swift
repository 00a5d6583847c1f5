import CMosquitto
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The ceiling: a libmosquitto subscriber that only counts inside the C callback, copying nothing.
final class CSubscriber: Sendable {
    let received = Atomic<Int>(0)
    let firstNanos = Atomic<UInt64>(0)
    let lastNanos = Atomic<UInt64>(0)
    let connected = Atomic<Bool>(false)
    private let handle: Handle

    struct Handle: @unchecked Sendable { let raw: OpaquePointer }

    init(port: Int32, topic: String) {
        _ = mosquitto_lib_init()
        let raw = mosquitto_new("bench-c", true, nil)!
        handle = Handle(raw: raw)
        mosquitto_user_data_set(raw, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_connect_v5_callback_set(raw) { mosq, obj, rc, _, _ in
            let me = Unmanaged<CSubscriber>.fromOpaque(obj!).takeUnretainedValue()
            mosquitto_subscribe_v5(mosq, nil, "bench/#", 0, 0, nil)
            _ = rc
            me.connected.store(true, ordering: .releasing)
        }
        mosquitto_message_v5_callback_set(raw) { _, obj, _, _ in
            let me = Unmanaged<CSubscriber>.fromOpaque(obj!).takeUnretainedValue()
            let now = monotonicNanos()
            if me.received.wrappingAdd(1, ordering: .relaxed).newValue == 1 { me.firstNanos.store(now, ordering: .relaxed) }
            me.lastNanos.store(now, ordering: .relaxed)
        }
        mosquitto_loop_start(raw)
        mosquitto_connect_async(raw, "127.0.0.1", port, 30)
        _ = topic
    }

    func stop() {
        mosquitto_disconnect(handle.raw)
        mosquitto_loop_stop(handle.raw, false)
        mosquitto_destroy(handle.raw)
    }
}

func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU time (user + system) this process has used, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
