import Foundation
import Logging
import Mappings
import Mosquitto
import Persistence
import ServiceLifecycle
import Synchronization

/// Timers, held-for deadlines and sun events: the runtime is ticked when the next one is due,
/// and at least four times a second.
struct TickerService: Service {
    let runtime: GatewayRuntime
    let clock: any GatewayClock

    func run() async {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await clock.sleep(for: await runtime.untilNextDue(limit: .milliseconds(250)))
                await runtime.tick()
            }
        }
    }
}

/// State requests for devices that joined, or for every device after a reconnect, go out 50 at a
/// time four times a second. This one waits on real time, not the gateway's clock: it is a rate
/// on the devices' network, not time in the home.
struct RequestPacerService: Service {
    let runtime: GatewayRuntime

    func run() async {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .milliseconds(250))
                await runtime.pace()
            }
        }
    }
}

/// Once a minute, if messages were dropped or refused since the last look, one line says how many.
struct DropReporterService: Service {
    let client: MQTTClient
    let runtime: GatewayRuntime
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

/// The store writer: writes what the runtime queues, off the message path. At shutdown it writes
/// what is left and publishes what waited for it, before the broker connection closes.
struct StoreWriterService: Service {
    let writer: StoreWriter
    let runtime: GatewayRuntime
    /// Opened once the writer has written its last.
    let done: Latch

    func run() async {
        await withGracefulShutdownHandler {
            await writer.run(resync: { [runtime] in await runtime.resync() }, deliver: { [runtime] in await runtime.committed($0, unstored: $1) })
        } onGracefulShutdown: { [writer] in
            writer.close()
        }
        // Every change is stored and answered; what still waits (a read no device answered) is told the gateway stops.
        await runtime.stop()
        runtime.events.close()
        done.open()
    }
}

/// Holds the database open while the gateway runs and closes it last, once the writer is done:
/// after a graceful stop it already is; if the group is cancelled instead, it still waits for it.
struct DatabaseService: Service {
    let store: SQLiteHomeStore
    let writerDone: Latch
    let log: Logger

    func run() async {
        try? await gracefulShutdown()
        await writerDone.wait()
        store.close()
        log.info("stopped")
    }
}

/// Opens once; waiting for it is not cut short by cancellation.
final class Latch: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }
}
