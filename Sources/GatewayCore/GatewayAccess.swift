public import Foundation
public import JSON

/// What a front end has of the running gateway (MQTT's requests aside): the core's typed commands
/// and answers, its typed events, the accessory tree's changes, a snapshot of the home, health, and
/// a place for the front end's own state. Every front end (the HTTP API, the HomeKit bridge) speaks
/// to this, and only to this: `Gateway` implements it over the running gateway (`HomeGateway.Runtime`), `GatewayTesting` in memory.
public protocol GatewayAccess: Sendable {
    /// Runs `command` and returns its answer: at once for a read of the home, once stored for a
    /// change, when the device reports for a read (3 s at most).
    func perform(_ command: HomeCommand) async -> Answer

    /// Every event of the home, typed, for the live streams.
    var events: EventBroadcast { get }

    /// Raised once per step that changed the accessory tree (or a home, room or zone): for a front
    /// end that lays the home out itself, instead of comparing snapshots.
    var treeChanges: TreeChanges { get }

    /// The home as it is now.
    func snapshot() async -> HomeSnapshot

    /// Whether every Zigbee2MQTT bridge has sent its device list since the start: until then the
    /// house is partly the one stored at the last run.
    func inventoriesHeard() async -> Bool

    /// The house's time zone: trigger times that name none are in it.
    var timeZone: TimeZone { get }

    /// `request/health`'s answer: `ready`, the broker, the database, the mapping files, the counters.
    func health() async -> JSONValue

    /// What the front end `name` says of itself in health from now on (`"homekit"`: its bridges'
    /// advertisement); its warnings go to the report's `warnings`, never to `problems`.
    func report(_ name: String, _ status: AdapterStatus?)

    /// A front end's own state by key (the HomeKit bridge's keys and pairings), kept next to the
    /// home but not part of it. nil when nothing is stored under `key`.
    func adapterState(_ key: String) throws -> String?

    func saveAdapterState(_ key: String, _ value: String) async throws
}
