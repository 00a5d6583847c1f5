import Logging
import Mosquitto
import ServiceLifecycle

/// The second broker connection, for the bridges' device lists alone (`mqtt.lists_connection`): a
/// list is megabytes with a thousand devices, and a connection delivers in order, so on the main
/// connection every device message published after a list waits until the whole list has come
/// through. Here the list is read on this connection's network thread (`InventoryReader`) while
/// the main one goes on delivering readings. Its state is in health beside the main one's; a
/// broker that refuses it gets the lists on the main connection instead.
struct ListsService: Service {
    let client: MQTTClient
    let runtime: HomeGateway.Runtime
    let health: GatewayHealth
    let log: ComponentLoggers

    func run() async throws {
        try client.start()
        health.lists(connected: false, problem: "not connected yet")
        async let received: Void = receive()
        var refused = false
        for await state in client.connectionEvents.cancelOnGracefulShutdown() {
            switch state {
            case .connected:
                health.lists(connected: true, problem: nil)
                await runtime.listsConnected()
            case .disconnected(let reason):
                health.lists(connected: false, problem: "\(reason)")
                log[.mqtt].warning(
                    "the device lists' connection was lost, retrying with back-off", metadata: ["reason": "\(reason)"])
            case .refused(let error):
                let line =
                    "the broker refused the device lists' connection (client id \(client.configuration.clientID)): \(error); "
                    + "the lists come on the main connection instead, where readings wait behind them "
                    + "(allow the client id, or set mqtt.lists_connection: false)"
                log[.mqtt].error("\(line)")
                health.listsOnMainConnection()
                await runtime.listsRefused()
                refused = true
            case .connecting, .closed:
                break
            }
            if refused { break }
        }
        await client.shutdown()  // ends `receive`
        await received
        // Refused, it waits for the others: a service that returns early stops the gateway.
        if refused { try? await gracefulShutdown() }
    }

    private func receive() async {
        var iterator = client.messages.makeAsyncIterator()
        while let chunks = await iterator.nextChunks() {
            for chunk in chunks where !chunk.isEmpty { await runtime.handle(chunk) }
        }
    }
}
