import Logging
import Persistence
import ServiceLifecycle

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
