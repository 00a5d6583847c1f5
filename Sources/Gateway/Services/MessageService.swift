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
    /// Messages handled in one step of the core at most.
    static let step = 2_000

    func run() async {
        let healthTopic = "\(baseTopic)/request/health"
        // Cancelled at shutdown between batches: a batch taken is handled whole.
        await cancelWhenGracefulShutdown {
            var iterator = client.messages.makeAsyncIterator()
            while var batch = await iterator.nextBatch() {
                if batch.contains(where: { $0.topic == healthTopic }) {
                    await answerHealth(batch.filter { $0.topic == healthTopic })
                    batch.removeAll { $0.topic == healthTopic }
                }
                // A burst is handled a slice at a time: what one step makes (events, states, its
                // output) grows with its size; one step of a 50,000-message flood held 15 MB more.
                // A batch of one step is handed over whole, so nothing here holds its payloads
                // while the core works (a bridge's device list is megabytes).
                let count = batch.count
                if count <= Self.step {
                    await runtime.handle(consume batch)
                } else {
                    // Each slice's messages leave the batch as they are handed over, so what has
                    // been handled is freed while the rest of the burst waits its turn.
                    for start in stride(from: 0, to: count, by: Self.step) {
                        var slice: [MQTTMessage] = []
                        slice.reserveCapacity(min(Self.step, count - start))
                        for index in start..<min(start + Self.step, count) {
                            slice.append(batch[index])
                            batch[index] = MQTTMessage(topic: "", payload: [])
                        }
                        await runtime.handle(consume slice)
                    }
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
