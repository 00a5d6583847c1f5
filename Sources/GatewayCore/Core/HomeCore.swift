public import Automation
public import Foundation
public import HomeModel
import JSON
public import Mappings

/// The home as the gateway keeps it: every accessory and which device it is, the structure,
/// action sets and triggers. Pure: device inputs (from `DeviceSources`) and typed commands in;
/// typed events, replies, device commands and store changes out. The machine (`HomeMachine`) hands
/// those to its peers, each of which renders its own protocol; the runtime does the I/O. One owner calls it at a time.
public struct HomeCore: Sendable {
    struct Entry: Sendable {
        /// Boxed: an entry is stored inline in the entries dictionary, and a mapping is as large as an accessory.
        indirect enum Source: Sendable {
            case zigbee2mqtt(bridge: String, mapping: Zigbee2MQTTMapping)
            case explicit(MQTTAccessoryMapping)
        }
        var accessory: Accessory
        var source: Source
        var deviceOnline = true
        /// Whether anything was heard of it since the start: an accessory placed from the stored
        /// device list (`HomeCore+Known.swift`) is not, until its bridge or the device speaks.
        var heard = true
        /// When the device last sent its state (any report, even one that changed nothing or could
        /// not be read), since the gateway started; a retained message the broker replays does not count.
        var lastSeen: Date?
        /// The names the mapping gives services (by id), as built: the accessory's own carry the
        /// user's names over them, and a Zigbee2MQTT mapping keeps no services of its own.
        var mappingServiceNames: [String: String] = [:]
    }

    /// A write sent to a device, so the value it reports back is credited to whoever wrote it.
    struct PendingWrite: Sendable {
        var value: CharacteristicValue
        var source: ChangeSource
        var deadline: Date
    }

    /// A read request waiting for the device to report.
    struct PendingRead: Sendable {
        var key: CharacteristicKey
        var ticket: Ticket
        var deadline: Date
    }

    typealias CharacteristicKey = CharacteristicPath

    public internal(set) var mappings: MappingSet
    var entries: [String: Entry] = [:]
    /// Accessory ids in the order they were added, for a stable tree.
    var order: [String] = []
    /// What is known of each Zigbee2MQTT bridge: its device and group lists, and which accessory each device is.
    var bridges: Zigbee2MQTTBridges
    /// Writes waiting for the device to echo them, oldest first, a few per characteristic: two
    /// writes in one moment are each credited to their writer.
    var pendingWrites: [CharacteristicKey: [PendingWrite]] = [:]
    var pendingReads: [PendingRead] = []
    /// State requests paced out after devices joined or a reconnect.
    var refreshQueue: [DeviceCommand] = []
    public internal(set) var counters = GatewayCounters()
    /// Problems worth a log line, drained by the service.
    public internal(set) var notices: [Notice] = []

    // The home: structure, scenes and automations, kept in the store.
    public internal(set) var structure: HomeStructure
    var actionSets: [String: ActionSet] = [:]
    /// Action set ids in the order they were added.
    var actionSetOrder: [String] = []
    var engine: TriggerEngine
    /// Trigger ids in the order they were added.
    var triggerOrder: [String] = []
    /// Display names in use per home (lower case → accessory id): names are unique in a home.
    var accessoryNames: [String: [String: String]] = [:]
    /// Last known values from the store, for accessories that have not appeared yet.
    var storedValues: [CharacteristicPath: CharacteristicValue] = [:]
    /// Fires due at start, waiting until the accessories they write have appeared (or `startupSettle` passed).
    var startupFirings: [Firing] = []
    /// Accessories that left while running: one that comes back is announced as added again.
    var departed: Set<String> = []
    /// Counts fires and writes over time to stop automations that set each other off.
    var loopGuard = LoopGuard()
    let startedAt: Date
    static let startupSettle: TimeInterval = 30

    // Work of the current batch, flushed once at its end.
    var step = Step()
    /// Effects that go as soon as the step ends (writes to devices first of all).
    var out: [CoreEffect] = []
    /// Effects held until the batch's store changes are committed (`afterStoring`).
    var held: [CoreEffect] = []
    var store = StoreBatch()
    var now = Date()

    public struct Notice: Sendable, CustomStringConvertible {
        public enum Level: Sendable { case info, warning }
        public var level: Level
        public var component: LogComponent
        public var message: String
        public var description: String { message }

        public init(level: Level, component: LogComponent, message: String) {
            self.level = level
            self.component = component
            self.message = message
        }
    }

    /// A gateway over `mappings`, with the home as stored (nil: a new database gets one home).
    public init(
        mappings: MappingSet, stored: StoredHome? = nil,
        clock: ClockContext = ClockContext(timeZone: .current, location: nil), missedGrace: TimeInterval = 0, now: Date = Date()
    ) {
        self.mappings = mappings
        startedAt = now
        self.now = now
        structure = stored?.structure ?? .initial()
        engine = TriggerEngine(clock: clock, missedGrace: missedGrace)
        storedValues = stored?.values ?? [:]
        bridges = Zigbee2MQTTBridges(mappings.zigbee2mqtt)
        for skipped in stored?.skipped ?? [] { notice(.warning, .store, "database: \(skipped)") }
        for accessory in mappings.accessories { addExplicit(accessory) }
        placeKnown(stored?.inventories ?? [])
        for set in stored?.actionSets ?? [] {
            actionSets[set.id] = set
            actionSetOrder.append(set.id)
        }
        for trigger in stored?.triggers ?? [] {
            triggerOrder.append(trigger.id)
            startupFirings += engine.load(trigger, runtime: stored?.runtimes[trigger.id], now: now, value: currentValue)
        }
        step.treeChanged = true
    }

    public var accessories: [Accessory] { order.compactMap { entries[$0]?.accessory } }
    public var accessoryCount: Int { entries.count }
    /// When each accessory's device last reported, for those that have since the start.
    public var lastSeen: [String: Date] { entries.compactMapValues(\.lastSeen) }
    /// How many action sets and triggers there are, for the log.
    public var automationCounts: (actionSets: Int, triggers: Int) { (actionSets.count, engine.triggers.count) }
    public func accessory(_ id: String) -> Accessory? { entries[id]?.accessory }

    mutating func notice(_ level: Notice.Level, _ component: LogComponent, _ message: String) {
        notices.append(Notice(level: level, component: component, message: message))
    }

    public mutating func drainNotices() -> [Notice] {
        defer { notices = [] }
        return notices
    }

    /// Handles one batch of device messages and commands, in order; what they cause is coalesced per batch.
    public mutating func handle(_ inputs: [CoreInput], now: Date = Date()) -> CoreOutput {
        begin(now)
        for input in inputs {
            switch input {
            case .device(let input, let retained):
                take(input, retained: retained)
            case .command(let command, let ticket):
                perform(command, ticket: ticket)
            }
        }
        return finish()
    }

    /// Device inputs only.
    public mutating func handle(_ inputs: [DeviceInput], now: Date = Date()) -> CoreOutput {
        handle(inputs.map { .device($0) }, now: now)
    }

    /// Time passing: read requests that waited too long are answered, timers, sun events and
    /// "held for" deadlines fire.
    public mutating func tick(now: Date = Date()) -> CoreOutput {
        begin(now)
        expirePending()
        warnAboutSilentBridges()
        runDueTriggers()
        return finish()
    }

    /// The next few of the state requests queued for devices that joined or after a reconnect: at
    /// most `limit` per call, so that a thousand devices are not asked at once over one radio.
    public mutating func pace(limit: Int = 50) -> [DeviceCommand] {
        let paced = refreshQueue.prefix(limit)
        refreshQueue.removeFirst(paced.count)
        return Array(paced)
    }

    /// When the next timer, sun event or deadline is due, for the service to wake up on time.
    public mutating func nextDue() -> Date? { engine.nextDue() }

    mutating func begin(_ now: Date) {
        self.now = now
    }

    mutating func finish() -> CoreOutput {
        runQueuedFirings()
        // What decides the step's writes to devices has run: they lead the step's output, so the
        // light a trigger switches does not wait for the rest of the step to be rendered.
        let first = out.compactMap { if case .device(let command) = $0 { command } else { nil } }
        out.removeAll(where: \.isDeviceWrite)
        for (id, before) in step.reachabilityBefore.sorted(by: { $0.key < $1.key })
        where entries[id].map({ $0.accessory.reachable != before }) == true {
            publishAccessoryEvent(id, .reachability)
        }
        step.reachabilityBefore = [:]
        for (base, before) in step.bridgeOnlineBefore.sorted(by: { $0.key < $1.key }) {
            guard let online = bridges[base]?.online, online != before else { continue }
            notice(
                online ? .info : .warning, .devices,
                "Zigbee2MQTT bridge \(base) is \(online ? "online again" : "offline"); "
                    + "its accessories are \(online ? "reachable as their devices are" : "unreachable until it is back")")
        }
        step.bridgeOnlineBefore = [:]
        publishStructureChanges()
        if step.scenesStale { syncScenes() }
        collectStoreChanges()
        for id in step.dirtyStates.sorted() where entries[id] != nil { out.append(.stateChanged(id)) }
        step.dirtyStates = []
        if step.treeChanged {
            out.append(.treeChanged)
            step.treeChanged = false
        }
        // Moved out, not copied: a copy of the batch retains every field, and the next step starts empty.
        var output = CoreOutput(first: first, now: [], afterCommit: [], store: StoreBatch(), time: now)
        swap(&output.now, &out)
        swap(&output.afterCommit, &held)
        swap(&output.store, &store)
        return output
    }

    mutating func emit(_ effect: CoreEffect) { out.append(effect) }

    /// Runs `body`, and holds what it emitted until the batch is stored: the reply to a command
    /// that changes the home (an `ok` means stored), and what a fire does (a crash may lose a fire,
    /// never repeat one). Not nested: what a held command does is held with it.
    mutating func afterStoring<T>(_ hold: Bool = true, _ body: (inout HomeCore) throws -> T) rethrows -> T {
        guard hold else { return try body(&self) }
        let start = out.count
        defer {
            held += out[start...]
            out.removeSubrange(start...)
        }
        return try body(&self)
    }

    /// One input from a device source.
    mutating func take(_ input: DeviceInput, retained: Bool) {
        switch input {
        case .devices(let base, let devices): devicesChanged(devices, bridge: base)
        case .groups(let base, let groups): groupsChanged(groups, bridge: base)
        case .bridgeState(let base, let online): bridgeStateChanged(online, bridge: base)
        case .availability(let base, let device, let online): availabilityChanged(device, online, bridge: base)
        case .report(let base, let device, let topic, let payload): reported(device, topic: topic, payload, bridge: base, seen: !retained)
        case .value(let topic, let id, let service, let characteristic, let value):
            explicitValue(topic, id, service, characteristic, value, seen: !retained)
        case .reachable(let topic, let id, let online): explicitReachable(topic, id, online)
        case .unreadable(let topic, let problem):
            counters.invalid += 1
            notice(.warning, .devices, "\(topic): \(problem)")
        }
    }
}
