import GatewayCore
import HomeModel
import Matter
import Synchronization

/// The Moves running on the bridge's lights, one per endpoint and cluster, and the one ordered
/// queue every invoke's house command goes through. A Move ends at a Stop, at any other command
/// of its cluster (an OnOff command ends a LevelControl Move too: a step written after an Off would
/// switch the light back on), at the end of its range, after `longestMove`, or when its device is
/// unreachable or gone from the layout. Steps and commands are queued under one lock, so a step
/// never overtakes the command that ended its Move.
final class RampRunner: Sendable {
    /// The shortest time between two steps of one Move: about what a Zigbee light takes for one
    /// command, and what bridges such as matterbridge and Home Assistant's use for their ramps.
    static let interval: Duration = .milliseconds(250)
    /// The longest a Move runs: a slow one (MoveColor at 1/65536 a second) would otherwise write for hours.
    static let longestMove: Duration = .seconds(300)

    struct Key: Hashable {
        var endpoint: UInt16
        var cluster: UInt32
    }

    struct Running {
        var id: UInt64
        var endpoint: BridgedEndpoint
        var ramp: Ramp
        var started: ContinuousClock.Instant
        /// The last step queued: a step is queued only when it differs.
        var written: [WriteRequest]
    }

    private let running = Mutex<[Key: Running]>([:])
    private let moves = Atomic<UInt64>(0)
    private let send: @Sendable (QueuedCommand) -> Void
    /// The endpoint as the bridge's layout has it now, nil when it is gone.
    private let endpoint: @Sendable (UInt16) -> BridgedEndpoint?
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// `send`: where the house's commands go, in order (`MatterBridge.perform` takes them);
    /// `endpoint`: an endpoint as laid out now.
    init(send: @escaping @Sendable (QueuedCommand) -> Void, endpoint: @escaping @Sendable (UInt16) -> BridgedEndpoint?) {
        (self.send, self.endpoint) = (send, endpoint)
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// `commands`: the stream `MatterBridge.perform` takes the house's commands from.
    convenience init(
        commands: AsyncStream<QueuedCommand>.Continuation, endpoint: @escaping @Sendable (UInt16) -> BridgedEndpoint?
    ) {
        self.init(send: { commands.yield($0) }, endpoint: endpoint)
    }

    /// Answers an invoke on the node's lock: ends the Move it stops, queues its writes, starts its Move.
    func handle(
        _ path: CommandPath, _ invoke: BridgedEndpoint.Invoke, on endpoint: BridgedEndpoint, now: ContinuousClock.Instant = .now
    ) -> InteractionStatus {
        running.withLock { running in
            if case .refused(let status) = invoke { return status }  // a refused command changes nothing
            let key = Key(endpoint: path.endpoint, cluster: path.cluster == Cluster.onOff ? Cluster.levelControl : path.cluster)
            running[key] = nil
            guard case .ramp(let ramp) = invoke else { return MatterBridge.queue(invoke, from: .invoke, send: send) }
            if !ramp.first.isEmpty { send(QueuedCommand(command: .values(.write(ramp.first, source: .matter)), origin: .invoke)) }
            // What the house has now: a Move that starts beyond its range writes its end at the first step.
            running[key] = Running(
                id: moves.add(1, ordering: .relaxed).newValue, endpoint: endpoint, ramp: ramp, started: now,
                written: endpoint.writes(ramp, at: ramp.from, ended: false))
            wake.yield()
            return .success
        }
    }

    /// Steps the Moves every `interval` while any runs; waits for one otherwise.
    func run() async {
        var wakes = self.wakes.makeAsyncIterator()
        while !Task.isCancelled {
            if running.withLock({ $0.isEmpty }) {
                guard await wakes.next() != nil else { return }
            }
            do { try await Task.sleep(for: Self.interval) } catch { return }
            tick(now: .now)
        }
    }

    /// Queues each Move's step at `now` (when it changed what is written) and ends the Moves that
    /// reached their end or `longestMove`, and those whose device is unreachable or gone.
    func tick(now: ContinuousClock.Instant) {
        // The layout's lock is taken apart from `running`'s: never one inside the other.
        let numbers = Set(running.withLock { $0.keys.map(\.endpoint) })
        let current = Dictionary(uniqueKeysWithValues: numbers.compactMap { number in endpoint(number).map { (number, $0) } })
        running.withLock { running in
            for (key, var move) in running {
                guard let endpoint = current[key.endpoint], endpoint.reachable else {
                    running[key] = nil
                    continue
                }
                move.endpoint = endpoint
                let elapsed = min(now - move.started, Self.longestMove)
                var (values, ended) = move.ramp.values(after: elapsed / .seconds(1))
                ended = ended || elapsed >= Self.longestMove
                let step = endpoint.writes(move.ramp, at: values, ended: ended)
                if step != move.written {
                    send(QueuedCommand(command: .values(.write(step, source: .matter)), origin: .rampStep, move: move.id))
                    move.written = step
                }
                running[key] = ended ? nil : move
            }
        }
    }

    /// Whether a Move runs on `endpoint`'s `cluster` (for tests and health).
    func isMoving(endpoint: UInt16, cluster: UInt32) -> Bool {
        running.withLock { $0[Key(endpoint: endpoint, cluster: cluster)] != nil }
    }

    deinit { wake.finish() }
}
