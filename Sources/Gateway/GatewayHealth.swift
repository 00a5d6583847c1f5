import Foundation
import JSON
import Synchronization

/// Whether the running gateway is ready, and if not why: connected to the broker, the database
/// written, every mapping file loaded. Written by the parts that know, read by `request/health`.
/// Front ends add a section of their own and warnings (`AdapterStatus`), which do not touch `ready`.
final class GatewayHealth: Sendable {
    private struct State {
        var connected = false
        var brokerProblem: String? = "not connected yet"
        /// The connection for the device lists (`mqtt.lists_connection`): nil when there is none.
        var lists: (connected: Bool, problem: String?)?
        var brokenMappings: [String: Bool] = [:]
        var mappingFiles = 0
        var adapters: [String: AdapterStatus] = [:]
    }

    private let state = Mutex(State())

    func connected() {
        state.withLock {
            $0.connected = true; $0.brokerProblem = nil
        }
    }
    func disconnected(_ reason: String) {
        state.withLock {
            $0.connected = false; $0.brokerProblem = reason
        }
    }

    /// The device lists' connection (`ListsService`): up, or down and why.
    func lists(connected: Bool, problem: String?) {
        state.withLock { $0.lists = (connected, problem) }
    }

    /// The device lists come on the main connection (the broker refused the second one).
    func listsOnMainConnection() {
        state.withLock { $0.lists = nil }
    }

    func mappings(files: Int, broken: [String: Bool]) {
        state.withLock {
            $0.mappingFiles = files; $0.brokenMappings = broken
        }
    }

    /// `name`'s section and warnings from now on; nil takes them out.
    func adapter(_ name: String, _ status: AdapterStatus?) {
        state.withLock { $0.adapters[name] = status }
    }

    /// The answer's `data`: `ready`, the state of each part, and one line per problem.
    func report(
        store: (count: Int, duration: Duration, reason: String)?, counters: GatewayCounters,
        dropped: (incoming: Int, outgoing: Int) = (0, 0)
    ) -> JSONValue {
        let current = state.withLock { $0 }
        var problems: [String] = []
        if let problem = current.brokerProblem { problems.append("broker: \(problem)") }
        if let problem = current.lists?.problem { problems.append("broker (the device lists' connection): \(problem)") }
        if let store {
            let seconds = store.duration.components.seconds
            problems.append("database: \(store.count) writes failed in the last \(seconds) s (\(store.reason)); changes are kept in memory")
        }
        for (file, kept) in current.brokenMappings.sorted(by: { $0.key < $1.key }) {
            problems.append("mapping file \(file) has problems; \(kept ? "its last good version is in force" : "it is left out")")
        }
        var report: [String: JSONValue] = [
            "ready": .bool(problems.isEmpty),
            "broker": .string(current.connected ? "connected" : "disconnected"),
            "database": .string(store == nil ? "ok" : "failing"),
            "mapping_files": .integer(current.mappingFiles),
            "broken_mapping_files": .array(current.brokenMappings.keys.sorted().map { .string($0) }),
            "problems": .array(problems.map { .string($0) }),
            "warnings": .array(current.adapters.sorted { $0.key < $1.key }.flatMap { $0.value.warnings }.map { .string($0) }),
            "counters": [
                "messages": .integer(counters.messages), "invalid": .integer(counters.invalid), "oversized": .integer(counters.oversized),
                "events": .integer(counters.events), "device_writes": .integer(counters.deviceWrites),
                "retained_commands": .integer(counters.retainedCommands),
                "trigger_fires": .integer(counters.triggerFires), "trigger_fires_skipped": .integer(counters.triggerFiresSkipped),
                "action_set_runs": .integer(counters.actionSetRuns),
                "dropped_incoming": .integer(dropped.incoming), "dropped_while_disconnected": .integer(dropped.outgoing),
            ],
        ]
        if let lists = current.lists { report["lists_connection"] = .string(lists.connected ? "connected" : "disconnected") }
        for (name, status) in current.adapters where report[name] == nil { report[name] = status.section }
        return .object(report)
    }
}
