import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on `<database>.lock`, held while the process lives: a second homegate (or an
/// import) on the same database is refused instead of fighting over it. The kernel drops the lock
/// when the process dies, even by kill -9.
final class DatabaseLock: Sendable {
    private let descriptor: Int32
    private let released = Atomic<Bool>(false)

    init(databasePath: String) throws(PersistenceError) {
        // Beside the real file: a symlink, `..` or another spelling of the path must find the same lock.
        let path = Self.realPath(databasePath) + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: databasePath, reason: "cannot create \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder =
                (try? String(contentsOfFile: path, encoding: .utf8)).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            close(fd)
            throw .inUse(path: databasePath, holder: holder.isEmpty ? "pid unknown" : "pid \(holder)")
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        descriptor = fd
    }

    /// Lets go of the lock now, so a gateway started next in this process finds it free. Once.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(descriptor)
    }

    deinit { release() }

    /// The file's path with every symlink resolved; for a file not made yet, its folder's.
    static func realPath(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let url = URL(fileURLWithPath: path)
        guard let folder = realpath(url.deletingLastPathComponent().path, nil) else { return path }
        defer { free(folder) }
        return URL(fileURLWithPath: String(cString: folder)).appendingPathComponent(url.lastPathComponent).path
    }
}
