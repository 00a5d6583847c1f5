import GatewayCore
import HomeModel
import Matter
import Synchronization

/// The Moves running on the bridge's lights, one per endpoint and cluster, and the one ordered
/// queue every invoke's house command goes through. A Move ends at a Stop, at any other command
/// of its cluster (an OnOff command ends a LevelControl Move too: a step written after an Off would
/// switch the light back on), or at the end of its range. Steps and commands are queued under one
/// lock, so a step never overtakes the command that ended its Move.
final class RampRunner: Sendable {
    /// The shortest time between two steps of one Move: about what a Zigbee light takes for one
    /// command, and what bridges such as matterbridge and Home Assistant's use for their ramps.
    static let interval: Duration = .milliseconds(250)

    struct Key: Hashable {
        var endpoint: UInt16
        var cluster: UInt32
    }

    struct Running {
        var endpoint: BridgedEndpoint
        var ramp: Ramp
        var started: ContinuousClock.Instant
        /// The last step queued: a step is queued only when it differs.
        var written: [WriteRequest]
    }

    private let running = Mutex<[Key: Running]>([:])
    private let send: @Sendable (HomeCommand) -> Void
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// `send`: where the house's commands go, in order (`MatterBridge.perform` takes them).
    init(send: @escaping @Sendable (HomeCommand) -> Void) {
        self.send = send
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    convenience init(commands: AsyncStream<HomeCommand>.Continuation) {
        self.init(send: { commands.yield($0) })
    }

    /// Answers an invoke on the node's lock: ends the Move it stops, queues its writes, starts its Move.
    func handle(
        _ path: CommandPath, _ invoke: BridgedEndpoint.Invoke, on endpoint: BridgedEndpoint, now: ContinuousClock.Instant = .now
    ) -> InteractionStatus {
        running.withLock { running in
            if case .refused(let status) = invoke { return status }  // a refused command changes nothing
            let key = Key(endpoint: path.endpoint, cluster: path.cluster == Cluster.onOff ? Cluster.levelControl : path.cluster)
            running[key] = nil
            guard case .ramp(let ramp) = invoke else { return MatterBridge.queue(invoke, send: send) }
            if !ramp.first.isEmpty { send(.values(.write(ramp.first, source: .matter))) }
            // What the house has now: a Move that starts beyond its range writes its end at the first step.
            running[key] = Running(
                endpoint: endpoint, ramp: ramp, started: now, written: endpoint.writes(ramp, at: ramp.from, ended: false))
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

    /// Queues each Move's step at `now` (when it changed what is written) and ends the Moves that reached their end.
    func tick(now: ContinuousClock.Instant) {
        running.withLock { running in
            for (key, var move) in running {
                let (values, ended) = move.ramp.values(after: (now - move.started) / .seconds(1))
                let step = move.endpoint.writes(move.ramp, at: values, ended: ended)
                if step != move.written {
                    send(.values(.write(step, source: .matter)))
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
