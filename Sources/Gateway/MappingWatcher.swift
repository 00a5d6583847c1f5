import Foundation

/// Notices edits in the mappings folder by polling names, sizes and modification times:
/// cheap, and it works on bind mounts where inotify does not.
struct MappingWatcher: Sendable {
    let directory: String

    struct Snapshot: Equatable, Sendable {
        var files: [String: [Double]] = [:]
    }

    func snapshot() -> Snapshot {
        var snapshot = Snapshot()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let path = (directory as NSString).appendingPathComponent(name)
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            let size = Double((attributes?[.size] as? NSNumber)?.intValue ?? 0)
            snapshot.files[name] = [modified, size]
        }
        return snapshot
    }
}
