import Logging
import Mosquitto
import ServiceLifecycle

/// Once a minute, if messages were dropped or refused since the last look, one line says how many.
struct DropReporterService: Service {
    let client: MQTTClient
    let runtime: HomeGateway.Runtime
    let log: Logger
    let clock: any GatewayClock

    func run() async {
        try? await cancelWhenGracefulShutdown {
            var last = (incoming: 0, outgoing: 0, oversized: 0, invalid: 0)
            while true {
                try await clock.sleep(for: .seconds(60))
                let counters = await runtime.counters
                let now = (client.droppedIncoming, client.droppedWhileDisconnected, counters.oversized, counters.invalid)
                let parts = [
                    ("dropped because the gateway fell behind", now.0 - last.incoming),
                    ("dropped while the broker was away", now.1 - last.outgoing),
                    ("over max_payload_bytes", now.2 - last.oversized), ("refused as invalid", now.3 - last.invalid),
                ]
                .filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }
                if !parts.isEmpty { log.warning("in the last minute: \(parts.joined(separator: ", ")) (totals in homegate health)") }
                last = (now.0, now.1, now.2, now.3)
            }
        }
    }
}
