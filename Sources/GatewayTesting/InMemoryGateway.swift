import Automation
public import Foundation
public import GatewayCore
public import JSON
public import Mappings
import Synchronization

/// The gateway's surface (`GatewayAccess`) in memory, over a real `HomeCore`: for testing a front
/// end without a broker or a database. A command runs at once, as though every change were stored
/// the moment it was made; device messages come from the test (`device(_:_:)`), and what the core
/// sends to devices is kept (`sent`). Time moves only when the test says (`advance(by:)`).
public final class InMemoryGateway: GatewayAccess {
    private struct State {
        var machine: HomeMachine
        var now: Date
        var waiting: [Ticket: CheckedContinuation<Answer, Never>] = [:]
        var performed: [HomeCommand] = []
        var sent: [Outgoing] = []
        var snapshots = 0
        var health: JSONValue = ["ready": true]
        var reports: [String: AdapterStatus] = [:]
        var adapterState: [String: String] = [:]
    }

    public let events: EventBroadcast
    public let treeChanges: TreeChanges
    public let timeZone: TimeZone
    private let state: Mutex<State>

    /// A house with one Zigbee2MQTT bridge at `zigbee2mqtt` and no device yet.
    public static var zigbee2mqtt: MappingSet {
        var mappings = MappingSet()
        _ = mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n")
        return mappings
    }

    /// The home of `mappings` (and of `stored`, as a database would hold it) at `now`.
    public init(
        mappings: MappingSet = InMemoryGateway.zigbee2mqtt, stored: StoredHome? = nil,
        timeZone: TimeZone = .gmt, now: Date = Date(timeIntervalSince1970: 1_795_000_000),
        eventCapacity: Int = 1_000
    ) {
        self.timeZone = timeZone
        events = EventBroadcast(capacity: eventCapacity)
        treeChanges = TreeChanges()
        let core = HomeCore(mappings: mappings, stored: stored, clock: ClockContext(timeZone: timeZone, location: nil), now: now)
        state = Mutex(State(machine: HomeMachine(core: core), now: now))
        // As the gateway's first tick: the tree as found at start.
        resume(
            state.withLock { state in
                let output = state.machine.tick(now: state.now)
                return Self.step(&state, output, events, treeChanges)
            })
    }

    // MARK: GatewayAccess

    public func perform(_ command: HomeCommand) async -> Answer {
        await withCheckedContinuation { continuation in
            resume(
                state.withLock { state in
                    state.performed.append(command)
                    let (ticket, output) = state.machine.perform(command, now: state.now)
                    state.waiting[ticket] = continuation
                    return Self.step(&state, output, events, treeChanges)
                })
        }
    }

    public func snapshot() async -> HomeSnapshot {
        state.withLock { state in
            state.snapshots += 1
            return HomeSnapshot(
                accessories: state.machine.core.accessories, lastSeen: state.machine.core.lastSeen,
                structure: state.machine.core.structure, inventoriesHeard: state.machine.core.inventoriesHeard)
        }
    }

    public func inventoriesHeard() async -> Bool { state.withLock { $0.machine.core.inventoriesHeard } }

    public func health() async -> JSONValue { state.withLock { $0.health } }

    public func report(_ name: String, _ status: AdapterStatus?) { state.withLock { $0.reports[name] = status } }

    public func adapterState(_ key: String) throws -> String? { state.withLock { $0.adapterState[key] } }

    public func saveAdapterState(_ key: String, _ value: String) async throws { state.withLock { $0.adapterState[key] = value } }

    // MARK: What the test does

    /// A message on a device topic, as the broker would hand it over (`zigbee2mqtt/bridge/devices`,
    /// `zigbee2mqtt/Hallway Lamp`, a `source: mqtt` accessory's state topic).
    public func device(_ topic: String, _ payload: JSONValue) {
        resume(
            state.withLock { state in
                let message = Incoming(topic: topic, payload: payload.serializedBytes())
                let output = state.machine.handle([message], now: state.now)
                return Self.step(&state, output, events, treeChanges)
            })
    }

    /// Moves the time on by `seconds` and lets the core act on it (expired reads, timers).
    public func advance(by seconds: TimeInterval) {
        resume(
            state.withLock { state in
                state.now += seconds
                let output = state.machine.tick(now: state.now)
                return Self.step(&state, output, events, treeChanges)
            })
    }

    /// What `health()` answers from now on.
    public func setHealth(_ report: JSONValue) { state.withLock { $0.health = report } }

    /// The gateway stops: commands still waiting are told so, and the event streams and the tree's
    /// subscriptions end.
    public func close() {
        resume(
            state.withLock { state in
                defer { state.waiting = [:] }
                return state.waiting.values.map { ($0, Answer.stopping) }
            })
        events.close()
        treeChanges.close()
    }

    // MARK: What the test reads

    /// Every command a front end performed, in order.
    public var performed: [HomeCommand] { state.withLock { $0.performed } }
    /// Every message the core sent to devices, in order (writes and `/get`s).
    public var sent: [Outgoing] { state.withLock { $0.sent } }
    /// How many snapshots front ends took.
    public var snapshots: Int { state.withLock { $0.snapshots } }
    /// What each front end last said of itself (`report`).
    public var reports: [String: AdapterStatus] { state.withLock { $0.reports } }
    /// The home now, as the core holds it.
    public var core: HomeCore { state.withLock { $0.machine.core } }

    // MARK: Steps

    /// A step's output, as the gateway's runtime delivers it with its store at once: device
    /// messages kept, events published, the tree raised once, the answers returned to resume.
    private static func step(
        _ state: inout State, _ output: consuming HomeMachine.Output, _ events: EventBroadcast, _ tree: TreeChanges
    ) -> [(CheckedContinuation<Answer, Never>, Answer)] {
        let output = state.machine.storedAtOnce(output)
        state.sent += output.devices
        // In the runtime's order, under the lock so that steps reach every client in order.
        events.publish(output.events)
        if output.treeChanged { tree.raise() }
        return output.replies.compactMap { reply in
            state.waiting.removeValue(forKey: reply.ticket).map { ($0, Answer(reply, unstored: output.unstored)) }
        }
    }

    private func resume(_ answers: [(CheckedContinuation<Answer, Never>, Answer)]) {
        for (continuation, answer) in answers { continuation.resume(returning: answer) }
    }
}
