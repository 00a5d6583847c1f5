import JSON
import Mosquitto
import ServiceLifecycle

/// Device messages and requests, in batches, to the runtime: the gateway's only input from the
/// broker. `request/health` is answered here, from what each part last said, so it is answered
/// even while the home is busy or the disk fails. The first service to stop.
struct MessageService: Service {
    let client: MQTTClient
    let runtime: GatewayRuntime
    let writer: StoreWriter
    let health: GatewayHealth
    let baseTopic: String

    func run() async {
        let healthTopic = "\(baseTopic)/request/health"
        // Cancelled at shutdown between batches: a batch taken is handled whole.
        try? await cancelWhenGracefulShutdown {
            var iterator = client.messages.makeAsyncIterator()
            while var batch = await iterator.nextBatch() {
                if batch.contains(where: { $0.topic == healthTopic }) {
                    await answerHealth(batch.filter { $0.topic == healthTopic })
                    batch.removeAll { $0.topic == healthTopic }
                }
                if !batch.isEmpty { await runtime.handle(batch) }
            }
        }
    }

    private func answerHealth(_ requests: [MQTTMessage]) async {
        let counters = await runtime.counters
        for request in requests {
            var answer: [String: JSONValue] = ["status": "ok", "data": health.report(store: writer.failing, counters: counters,
                                                                                        dropped: (client.droppedIncoming, client.droppedWhileDisconnected))]
            answer["transaction"] = (try? JSONValue(parsing: request.payload))?["transaction"]
            try? client.publish("\(baseTopic)/response/health", JSONValue.object(answer).serializedBytes(), qos: .atLeastOnce)
        }
    }
}
