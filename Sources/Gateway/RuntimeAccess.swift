import Foundation
import JSON
import Persistence

/// The gateway's access for its front ends: commands and the home through the runtime, events and
/// tree changes as the runtime raises them, health from its board, adapter state in its database.
final class RuntimeAccess: GatewayAccess {
    let runtime: HomeGateway.Runtime
    let events: EventBroadcast
    let treeChanges: TreeChanges
    let timeZone: TimeZone
    let readiness: @Sendable () async -> JSONValue
    let store: SQLiteHomeStore?
    let healthBoard: GatewayHealth

    init(
        runtime: HomeGateway.Runtime, events: EventBroadcast, treeChanges: TreeChanges, timeZone: TimeZone, store: SQLiteHomeStore? = nil,
        health: GatewayHealth, readiness: @escaping @Sendable () async -> JSONValue
    ) {
        self.treeChanges = treeChanges
        self.healthBoard = health
        self.runtime = runtime
        self.events = events
        self.timeZone = timeZone
        self.store = store
        self.readiness = readiness
    }

    func perform(_ command: HomeCommand) async -> Answer { await runtime.perform(command) }

    func snapshot() async -> HomeSnapshot { await runtime.snapshot() }

    func inventoriesHeard() async -> Bool { await runtime.inventoriesHeard }

    func health() async -> JSONValue { await readiness() }

    func report(_ name: String, _ status: AdapterStatus?) { healthBoard.adapter(name, status) }

    func adapterState(_ key: String) throws -> String? { try store?.adapterState(key) }

    func saveAdapterState(_ key: String, _ value: String) async throws {
        guard let store else { throw HomeError(.busy, "no database to keep \(key) in") }
        try await store.saveAdapterState(key, value)
    }
}
