import ServiceLifecycle

/// The store writer: writes what the runtime queues, off the message path, and hands what waited
/// for each write back to the runtime. At shutdown it writes what is left and hands it back, before
/// the broker connection closes.
struct StoreWriterService: Service {
    let writer: StoreWriter
    let runtime: HomeGateway.Runtime
    /// Opened once the writer has written its last.
    let done: Latch

    func run() async {
        await withGracefulShutdownHandler {
            await writer.run(
                resync: { [runtime] in await runtime.resync() },
                deliver: { [runtime] held, unstored in await runtime.committed(held, unstored: unstored) })
        } onGracefulShutdown: { [writer] in
            writer.close()
        }
        // Every change is stored and answered; what still waits (a read no device answered) is told the gateway stops.
        await runtime.stop()
        runtime.events.close()
        runtime.tree.close()
        done.open()
    }
}
