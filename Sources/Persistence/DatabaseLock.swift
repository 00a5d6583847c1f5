import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on `<database>.lock`, held while the process lives: a second homegate (or an
/// import) on the same database is refused instead of fighting over it. The kernel drops the lock
/// when the process dies, even by kill -9.
final class DatabaseLock: Sendable {
    private let descriptor: Int32

    init(databasePath: String) throws(PersistenceError) {
        let path = databasePath + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: databasePath, reason: "cannot create \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8)).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            close(fd)
            throw .inUse(path: databasePath, holder: holder.isEmpty ? "pid unknown" : "pid \(holder)")
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        descriptor = fd
    }

    deinit { close(descriptor) }
}
