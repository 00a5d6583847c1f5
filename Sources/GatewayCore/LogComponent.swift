/// The parts of the gateway a log line can come from; each may have its own level
/// (`log_levels.mqtt: debug`).
public enum LogComponent: String, Sendable, CaseIterable, Hashable {
    /// Starting, stopping, the per-minute counters.
    case gateway
    /// The broker connection: connects, losses, refusals, publish errors.
    case mqtt
    /// Mapping files: reloads, broken files, overrides that match nothing.
    case mappings
    /// Device messages and bridges: bad payloads, joins and leaves, availability.
    case devices
    /// Writes and requests from `set/` and `request/`.
    case api
    /// Triggers firing, action sets running, loops stopped.
    case automation
    /// The database: failed writes, recovery, what could not be stored.
    case store
    /// The HTTP API and the web page: where it listens, each request (at debug).
    case http
    /// The HomeKit bridge: where it listens, pairings, its advertisement.
    case hap
    /// The Matter bridge: where it listens, fabrics, commissioning, its advertisement.
    case matter
}
