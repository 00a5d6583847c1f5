import JSON
import Mosquitto
import ServiceLifecycle

/// Device messages and requests, in batches, to the runtime: the gateway's only input from the
/// broker. `request/health` is answered here, from what each part last said, so it is answered
/// even while the home is busy or the disk fails. The first service to stop.
struct MessageService: Service {
    let client: MQTTClient
    let runtime: HomeGateway.Runtime
    let writer: StoreWriter
    let health: GatewayHealth
    let baseTopic: String
    /// Messages handled in one step of the core at most.
    static let step = 2_000

    func run() async {
        let healthTopic = "\(baseTopic)/request/health"
        // Cancelled at shutdown between batches: a batch taken is handled whole.
        await cancelWhenGracefulShutdown {
            var iterator = client.messages.makeAsyncIterator()
            while var chunks = await iterator.nextChunks() {
                if chunks.contains(where: { $0.contains { $0.topic == healthTopic } }) {
                    await answerHealth(chunks.flatMap { $0.filter { $0.topic == healthTopic } })
                    for index in chunks.indices { chunks[index].removeAll { $0.topic == healthTopic } }
                }
                // A burst is handled a step at a time: what one step makes (events, states, its
                // output) grows with its size; one step of a 50,000-message flood held 15 MB more.
                // The inbox's chunks (a thousand messages at most) are handed over as they are
                // taken, so nothing here holds the payloads of what the core has handled (a
                // bridge's device list is megabytes) while the rest of the burst waits its turn.
                let count = chunks.reduce(0) { $0 + $1.count }
                var next = 0
                while next < chunks.count {
                    var step: [MQTTMessage] = []
                    swap(&step, &chunks[next])
                    next += 1
                    while next < chunks.count, step.count + chunks[next].count <= Self.step {
                        step.append(contentsOf: chunks[next])
                        chunks[next] = []
                        next += 1
                    }
                    if !step.isEmpty { await runtime.handle(consume step) }
                }
                if count >= 1_000 { await runtime.releaseMemory() }
            }
        }
    }

    private func answerHealth(_ requests: [MQTTMessage]) async {
        let counters = await runtime.counters
        for request in requests {
            var answer: [String: JSONValue] = [
                "status": "ok",
                "data": health.report(
                    store: writer.failing, counters: counters,
                    dropped: (client.droppedIncoming, client.droppedWhileDisconnected)),
            ]
            answer["transaction"] = (try? JSONValue(parsing: request.payload))?["transaction"]
            try? client.publish("\(baseTopic)/response/health", JSONValue.object(answer).serializedBytes(), qos: .atLeastOnce)
        }
    }
}
