import GatewayCore
import JSON
import Metrics
public import Prometheus
import Synchronization

/// `/metrics` in the Prometheus text format. What the gateway already counts (messages, events,
/// writes, fires, drops) is read when Prometheus asks, so the message path pays nothing for it;
/// what only a part of the gateway sees as it happens (each store transaction's time, broker
/// connections, failed writes) is recorded through swift-metrics into the same registry.
public final class MetricsExporter: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let last = Mutex<[String: Int]>([:])

    /// The gateway's counters, each as a Prometheus counter: name, help, and its key in the health report's `counters`.
    private static let counted: [(name: String, help: String, key: String)] = [
        ("homegate_messages_received_total", "Device messages received", "messages"),
        ("homegate_messages_oversized_total", "Device messages dropped for their size (max_payload_bytes)", "oversized"),
        ("homegate_messages_dropped_total", "Messages dropped because the gateway fell behind", "dropped_incoming"),
        ("homegate_messages_dropped_while_disconnected_total", "Messages not sent while the broker was away", "dropped_while_disconnected"),
        ("homegate_invalid_total", "Device payloads, writes and requests refused as invalid", "invalid"),
        ("homegate_retained_commands_total", "Retained writes and requests refused", "retained_commands"),
        ("homegate_events_total", "Characteristic change events published", "events"),
        ("homegate_device_writes_total", "Writes sent to devices", "device_writes"),
        ("homegate_trigger_fires_total", "Triggers fired", "trigger_fires"),
        ("homegate_trigger_fires_skipped_total", "Fires of a busy trigger skipped by the loop guard's limit", "trigger_fires_skipped"),
        ("homegate_action_set_runs_total", "Action sets run", "action_set_runs"),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
    }

    /// A registry that swift-metrics writes into for the whole process (`homegate run` does this once).
    public static func bootstrap() -> MetricsExporter {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return MetricsExporter(registry: registry)
    }

    /// `homegate_events_total` as the registry wants it: a base name and a last part.
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        let cut = name.lastIndex(of: "_")!
        return MetricNameDescriptor(
            metricName: String(name[..<cut]), unitName: String(name[name.index(after: cut)...]), helpText: help)
    }

    /// The text Prometheus reads, with the gateway's state as of now.
    func scrape(_ access: any GatewayAccess) async -> String {
        let health = await access.health()
        let counters = health["counters"]?.objectValue ?? [:]
        let increments = last.withLock { last -> [(String, String, Int)] in
            Self.counted.compactMap { metric in
                guard let value = counters[metric.key]?.intValue else { return nil }
                defer { last[metric.name] = value }
                return (metric.name, metric.help, max(0, value - (last[metric.name] ?? 0)))
            }
        }
        for (name, help, by) in increments {
            let counter = registry.makeCounter(descriptor: Self.descriptor(name, help))
            if by > 0 { counter.increment(by: Int64(by)) }
        }
        let stream = access.events.counts
        registry.makeGauge(descriptor: Self.descriptor("homegate_stream_clients", "Clients of the live event stream"))
            .set(to: Double(stream.clients))
        let cut = last.withLock { last -> Int in
            defer { last["cut"] = stream.dropped }
            return max(0, stream.dropped - (last["cut"] ?? 0))
        }
        let dropped = registry.makeCounter(
            descriptor: Self.descriptor("homegate_stream_clients_dropped_total", "Stream clients cut off for falling behind"))
        if cut > 0 { dropped.increment(by: Int64(cut)) }
        registry.makeGauge(
            descriptor: Self.descriptor("homegate_ready", "1 when connected, the database writable and every mapping file loaded")
        ).set(to: health["ready"] == .bool(true) ? 1 : 0)
        registry.makeGauge(descriptor: Self.descriptor("homegate_broker_connected", "1 while connected to the broker"))
            .set(to: health["broker"] == "connected" ? 1 : 0)
        registry.makeGauge(descriptor: Self.descriptor("homegate_mapping_files_broken", "Mapping files with problems"))
            .set(to: Double(health["broken_mapping_files"]?.arrayValue?.count ?? 0))
        return registry.emitToString()
    }
}
