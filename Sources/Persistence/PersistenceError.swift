/// Why the database cannot be used, with the path and what to do.
public enum PersistenceError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case inUse(path: String, holder: String)
    case newerSchema(path: String)
    case failed(path: String, operation: String, reason: String)
    case notEmpty(path: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the database \(path): \(reason)"
        case .inUse(let path, let holder): "the database \(path) is in use by another homegate (\(holder)); stop it first"
        case .newerSchema(let path): "the database \(path) was written by a newer homegate; upgrade homegate or use another database path"
        case .failed(let path, let operation, let reason): "\(path): \(operation) failed: \(reason)"
        case .notEmpty(let path): "the database \(path) already holds a home; import needs an empty database (or --replace)"
        }
    }
}
