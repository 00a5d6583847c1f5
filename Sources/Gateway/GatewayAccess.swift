public import Foundation
public import JSON
import Persistence

/// What a front end other than MQTT (the HTTP API, HomeKit) has of the running gateway: the core's
/// typed commands and answers, its typed events, a snapshot of the home, and health.
public final class GatewayAccess: Sendable {
    let runtime: GatewayRuntime
    /// Every event of the home, for the live streams.
    public let events: EventHub
    /// Raised once per step that changed the accessory tree (or a home, room or zone): for a
    /// front end that lays the home out itself, instead of comparing snapshots.
    public let treeChanges: TreeChanges
    /// The house's time zone: trigger times that name none are in it.
    public let timeZone: TimeZone
    let readiness: @Sendable () async -> JSONValue
    let store: SQLiteHomeStore?
    let healthBoard: GatewayHealth

    init(
        runtime: GatewayRuntime, events: EventHub, treeChanges: TreeChanges, timeZone: TimeZone, store: SQLiteHomeStore? = nil,
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

    /// Runs `command` and returns its answer: at once for a read of the home, once stored for a
    /// change, when the device reports for a read (3 s at most).
    public func perform(_ command: HomeCommand) async -> Answer { await runtime.perform(command) }

    /// The home as it is now.
    public func snapshot() async -> HomeSnapshot { await runtime.snapshot() }

    /// Whether every Zigbee2MQTT bridge has sent its device list since the start: until then the
    /// house is partly the one stored at the last run.
    public func inventoriesHeard() async -> Bool { await runtime.inventoriesHeard }

    /// `request/health`'s answer: `ready`, the broker, the database, the mapping files, the counters.
    public func health() async -> JSONValue { await readiness() }

    /// What the front end `name` says of itself in health from now on (`"homekit"`: its bridges'
    /// advertisement); its warnings go to the report's `warnings`, never to `problems`.
    public func report(_ name: String, _ status: AdapterStatus?) { healthBoard.adapter(name, status) }

    /// A front end's own state by key (the HomeKit bridge's keys and pairings), kept in the
    /// database next to the home but not part of it. nil when nothing is stored under `key`.
    public func adapterState(_ key: String) throws -> String? { try store?.adapterState(key) }

    public func saveAdapterState(_ key: String, _ value: String) async throws {
        guard let store else { throw HomeError(.busy, "no database to keep \(key) in") }
        try await store.saveAdapterState(key, value)
    }
}
