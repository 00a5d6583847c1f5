import Foundation
import Logging
import Metrics
import Mosquitto
import ServiceLifecycle

/// The broker connection: starts the client, follows its state (logging each change once), tells
/// the runtime of every CONNACK, and at shutdown publishes `offline` and disconnects. A refused
/// connection ends the gateway with the broker's reason.
struct BrokerService: Service {
    let client: MQTTClient
    let runtime: HomeGateway.Runtime
    let health: GatewayHealth
    let offline: MQTTConfiguration.StatusMessage
    let log: ComponentLoggers

    func run() async throws {
        try client.start()
        var first = true
        // The same loss again and again (two gateways with one client id) is logged once a minute, with a count.
        var repeated = (reason: "", since: ContinuousClock.now, count: 0)
        for await state in client.connectionEvents.cancelOnGracefulShutdown() {
            switch state {
            case .connected:
                Counter(label: "homegate_broker_connections_total").increment()
                health.connected()
                if repeated.count == 0 { log[.mqtt].info("connected", metadata: ["broker": "\(client.configuration.broker)"]) }
                await runtime.connected(first: first)
                first = false
            case .disconnected(let reason):
                health.disconnected("\(reason)")
                if reason == repeated.reason, ContinuousClock.now - repeated.since < .seconds(60) {
                    repeated.count += 1
                    continue
                }
                if repeated.count > 0 { log[.mqtt].warning("the connection was lost \(repeated.count) more times for the same reason") }
                repeated = (reason, .now, 0)
                log[.mqtt].warning("broker connection lost, retrying with back-off", metadata: ["reason": "\(reason)"])
            case .refused(let error):
                log[.mqtt].critical("\(error); check mqtt.username and mqtt.password")
                await client.shutdown()
                throw error
            case .connecting, .closed:
                break
            }
        }
        log[.gateway].info("shutting down: publishing offline and disconnecting")
        await client.shutdown(finalMessage: offline)
    }
}
