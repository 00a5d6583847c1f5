public import Foundation
public import JSON

/// What a front end other than MQTT (the HTTP API, HomeKit) has of the running gateway: the core's
/// typed commands and answers, its typed events, a snapshot of the home, and health.
public final class GatewayAccess: Sendable {
    let runtime: GatewayRuntime
    /// Every event of the home, for the live streams.
    public let events: EventHub
    /// The house's time zone: trigger times that name none are in it.
    public let timeZone: TimeZone
    let readiness: @Sendable () async -> JSONValue

    init(runtime: GatewayRuntime, events: EventHub, timeZone: TimeZone, readiness: @escaping @Sendable () async -> JSONValue) {
        self.runtime = runtime
        self.events = events
        self.timeZone = timeZone
        self.readiness = readiness
    }

    /// Runs `command` and returns its answer: at once for a read of the home, once stored for a
    /// change, when the device reports for a read (3 s at most).
    public func perform(_ command: HomeCommand) async -> Answer { await runtime.perform(command) }

    /// The home as it is now.
    public func snapshot() async -> HomeSnapshot { await runtime.snapshot() }

    /// `request/health`'s answer: `ready`, the broker, the database, the mapping files, the counters.
    public func health() async -> JSONValue { await readiness() }
}
