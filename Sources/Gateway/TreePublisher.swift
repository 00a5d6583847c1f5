import HomeModel
import Logging
import Mosquitto
import Synchronization

/// Renders and publishes a large house's retained tree (`homegate/accessories`) off the runtime
/// (`MQTTAPI.treeApart`): with 10,000 accessories it is 18 MB, a quarter of a second to write, which
/// readings would otherwise wait behind. The newest tree replaces one that waits, and they go out in
/// order on one connection: the device lists' when there is one (so that the tree's megabytes do
/// not hold up the main connection's events on their way out either), once it is up.
final class TreePublisher: Sendable {
    private struct State {
        var waiting: [Accessory]?
        /// The device lists' connection was refused: the main one from now on.
        var mainOnly = false
        /// The last tree's size, to reserve the next one's room at once.
        var bytes = 0
    }

    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let topic: String
    private let main: MQTTClient
    private let lists: MQTTClient?
    private let log: Logger

    init(topic: String, main: MQTTClient, lists: MQTTClient?, log: Logger) {
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.topic = topic
        self.main = main
        self.lists = lists
        self.log = log
    }

    func enqueue(_ accessories: [Accessory]) {
        state.withLock { $0.waiting = accessories }
        wake.yield()
    }

    /// A connection came up: a tree that waited for it goes now.
    func connected() { wake.yield() }

    func useMainConnection() {
        state.withLock { $0.mainOnly = true }
        wake.yield()
    }

    func close() { wake.finish() }

    func run() async {
        for await _ in wakeups {
            while let (accessories, client, capacity) = next() {
                let tree = MQTTAPI.tree(accessories, reserving: capacity)
                state.withLock { $0.bytes = tree.count }
                do {
                    try client.publish(topic, tree, retain: true)
                } catch {
                    log.error("cannot publish: \(error)")
                }
            }
        }
    }

    private func next() -> ([Accessory], MQTTClient, Int)? {
        state.withLock { state in
            let client = state.mainOnly ? main : (lists ?? main)
            guard client.state.isConnected, let waiting = state.waiting else { return nil }
            state.waiting = nil
            return (waiting, client, state.bytes + state.bytes / 16)
        }
    }
}
