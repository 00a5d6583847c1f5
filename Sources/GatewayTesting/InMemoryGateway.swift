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
        var core: HomeCore
        var sources: DeviceSources
        var now: Date
        var lastTicket: UInt64 = 0
        var waiting: [Ticket: CheckedContinuation<Answer, Never>] = [:]
        var performed: [HomeCommand] = []
        var sent: [Outgoing] = []
        var snapshots = 0
        var health: JSONValue = ["ready": true]
        var reports: [String: AdapterStatus] = [:]
        var adapterState: [String: String] = [:]
    }

    public let events: EventHub
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
        events = EventHub(capacity: eventCapacity)
        treeChanges = TreeChanges()
        let core = HomeCore(mappings: mappings, stored: stored, clock: ClockContext(timeZone: timeZone, location: nil), now: now)
        state = Mutex(State(core: core, sources: DeviceSources(mappings: mappings), now: now))
        // As the gateway's first tick: the tree as found at start.
        resume(
            state.withLock { state in
                let output = state.core.tick(now: state.now)
                return Self.step(&state, output, events, treeChanges)
            })
    }

    // MARK: GatewayAccess

    public func perform(_ command: HomeCommand) async -> Answer {
        await withCheckedContinuation { continuation in
            resume(
                state.withLock { state in
                    state.performed.append(command)
                    state.lastTicket += 1
                    let ticket = Ticket(state.lastTicket)
                    state.waiting[ticket] = continuation
                    let output = state.core.handle([.command(command, ticket)], now: state.now)
                    return Self.step(&state, output, events, treeChanges)
                })
        }
    }

    public func snapshot() async -> HomeSnapshot {
        state.withLock { state in
            state.snapshots += 1
            return HomeSnapshot(
                accessories: state.core.accessories, lastSeen: state.core.lastSeen, structure: state.core.structure,
                inventoriesHeard: state.core.inventoriesHeard)
        }
    }

    public func inventoriesHeard() async -> Bool { state.withLock { $0.core.inventoriesHeard } }

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
                let inputs = state.sources.read(topic, payload.serializedBytes()).map { CoreInput.device($0) }
                let output = state.core.handle(inputs, now: state.now)
                return Self.step(&state, output, events, treeChanges)
            })
    }

    /// Moves the time on by `seconds` and lets the core act on it (expired reads, timers).
    public func advance(by seconds: TimeInterval) {
        resume(
            state.withLock { state in
                state.now += seconds
                let output = state.core.tick(now: state.now)
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
    public var core: HomeCore { state.withLock { $0.core } }

    // MARK: Steps

    /// A step's output, as the gateway's runtime delivers it with its store at once: device
    /// messages kept, events published, the tree raised once, the answers returned to resume.
    private static func step(
        _ state: inout State, _ output: consuming CoreOutput, _ events: EventHub, _ tree: TreeChanges
    ) -> [(CheckedContinuation<Answer, Never>, Answer)] {
        state.sent += output.first.map(DeviceSources.message(for:))
        var happened: [HomeEvent] = []
        var treeChanged = false
        var answers: [(CheckedContinuation<Answer, Never>, Answer)] = []
        for effect in output.now + output.afterCommit {
            switch effect {
            case .device(let command): state.sent.append(DeviceSources.message(for: command))
            case .event(let event):
                happened.append(event)
                switch event {
                case .home, .room, .zone: treeChanged = true
                default: break
                }
            case .reply(let reply):
                if let waiting = state.waiting.removeValue(forKey: reply.ticket) { answers.append((waiting, Answer(reply, unstored: nil))) }
            case .treeChanged: treeChanged = true
            case .stateChanged, .stateRemoved: break
            }
        }
        // In the runtime's order, under the lock so that steps reach every client in order.
        events.publish(happened, time: output.time)
        if treeChanged { tree.raise() }
        return answers
    }

    private func resume(_ answers: [(CheckedContinuation<Answer, Never>, Answer)]) {
        for (continuation, answer) in answers { continuation.resume(returning: answer) }
    }
}
