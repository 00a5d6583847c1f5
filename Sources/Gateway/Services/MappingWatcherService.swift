import Automation
import Foundation
import JSON
import Logging
import Mappings
import Mosquitto
import ServiceLifecycle

/// Applies edits in the mappings folder, looking once a second. A file with errors keeps its last
/// good version in force (or stays out, if it never loaded); the other files' edits apply all the same.
struct MappingWatcherService: Service {
    let directory: String
    /// The mapping files as loaded at start.
    let loaded: MappingSet.Loaded
    let runtime: HomeGateway.Runtime
    let report: MappingReport
    let clock: any GatewayClock

    func run() async {
        try? await cancelWhenGracefulShutdown {
            let watcher = MappingWatcher(directory: directory)
            var last = watcher.snapshot()
            var inForce = loaded
            while true {
                try await clock.sleep(for: .seconds(1))
                let current = watcher.snapshot()
                guard current != last else { continue }
                last = current
                let loaded = MappingSet.load(directory: directory, previous: inForce.texts)
                guard !loaded.folderUnreadable else {
                    report.log.error("cannot read the mappings folder \(directory); the mappings in force stay")
                    continue
                }
                await runtime.announce(report.report(loaded, before: inForce.broken))
                let changed = loaded.texts != inForce.texts
                inForce = loaded
                if changed { await runtime.reload(loaded.set) }
            }
        }
    }
}

/// Says which mapping files are broken: in the log, in health, and as events (`mapping_file`,
/// on `<base>/event/mapping_file/<name>` and the live streams) when a file breaks or loads again.
struct MappingReport: Sendable {
    let health: GatewayHealth
    let log: Logger

    /// Logs what broke or loads again since `before`, and returns the events that say so.
    func report(_ loaded: MappingSet.Loaded, before: [String: Bool]) -> [HomeEvent] {
        health.mappings(files: loaded.texts.count, broken: loaded.broken)
        var events: [HomeEvent] = []
        for (path, keptOld) in loaded.broken.sorted(by: { $0.key < $1.key }) {
            let problems = loaded.diagnostics.filter { $0.file == path }
            for problem in problems { log.error("\(problem)") }
            let effect = keptOld ? "its last good version stays in force" : "it is left out; its accessories are not mapped"
            log.error("mapping file \(path) has \(problems.count) problem\(problems.count == 1 ? "" : "s"); \(effect)")
            events.append(
                .mappingFile(
                    MappingFileEvent(
                        name: (path as NSString).lastPathComponent, path: path, change: .broken, errors: problems.map(\.description),
                        keptPrevious: keptOld)))
        }
        for path in before.keys.sorted() where loaded.broken[path] == nil {
            log.notice("mapping file \(path) loads again")
            events.append(.mappingFile(MappingFileEvent(name: (path as NSString).lastPathComponent, path: path, change: .fixed)))
        }
        return events
    }
}
