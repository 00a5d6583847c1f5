import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The database holds the HomeKit bridge's long-term secret key, so its files are the owner's
/// alone (0600): a new database is made so, an existing one with a wider mode tightened at open.
public enum DatabaseFileMode: Sendable, Equatable, CustomStringConvertible {
    /// The files were readable by others: now 0600.
    case tightened(path: String, from: UInt16)
    /// The files are readable by others and could not be changed (another user owns them).
    case tooOpen(path: String, mode: UInt16, reason: String)

    static let required: mode_t = 0o600

    public var description: String {
        switch self {
        case .tightened(let path, let mode):
            "\(path) was readable by others (mode \(Self.octal(mode))); it holds the HomeKit bridge's secret key: made it 0600"
        case .tooOpen(let path, let mode, let reason):
            "\(path) is readable by others (mode \(Self.octal(mode))) and holds the HomeKit bridge's secret key; cannot make it 0600 (\(reason)): chmod 600 it as its owner"
        }
    }

    /// Whether the files are 0600 now.
    public var isSecured: Bool {
        if case .tightened = self { true } else { false }
    }

    static func octal(_ mode: UInt16) -> String { "0" + String(mode, radix: 8) }

    /// Makes the database file, empty, with mode 0600 when there is none (SQLite gives its -wal and
    /// -shm files the database file's mode); tightens the files that exist when their mode lets
    /// others in. Nil when nothing was to be done.
    static func secure(databasePath path: String) -> DatabaseFileMode? {
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, required)
        if created >= 0 {
            close(created)
            return nil
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }  // SQLite says why when it opens it
        let mode = UInt16(status.st_mode & 0o777)
        guard mode & 0o077 != 0 else { return nil }
        var failure: String?
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            if chmod(file, required) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        }
        if let failure { return .tooOpen(path: path, mode: mode, reason: failure) }
        return .tightened(path: path, from: mode)
    }
}
