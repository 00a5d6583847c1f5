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
    typealias Entry = AccessoryTable.Entry
    typealias CharacteristicKey = CharacteristicPath

    public internal(set) var mappings: MappingSet

    // The parts, each the owner of its state: the step (`handle`, `tick`, `reload`) composes them,
    // passing each what it needs of another. Stored, and changed in place through their methods:
    // a part copied out and back would copy its tables for each reading.
    /// Accessories and their values, pending reads and writes, state requests to pace out.
    var table: AccessoryTable
    /// Homes, rooms, zones, where each accessory is, and its name in its home.
    var layout: HomeLayout
    /// Action sets, triggers, fires held back at start, the loop guard.
    var automation: Automations
    /// What is known of each Zigbee2MQTT bridge: its device and group lists, and which accessory each device is.
    var bridges: Zigbee2MQTTBridges

    public internal(set) var counters = GatewayCounters()
    /// Problems worth a log line, drained by the runtime (through the machine).
    public internal(set) var notices: [Notice] = []
    let startedAt: Date

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
        layout = HomeLayout(stored?.structure ?? .initial())
        automation = Automations(clock: clock, missedGrace: missedGrace)
        table = AccessoryTable(storedValues: stored?.values ?? [:])
        bridges = Zigbee2MQTTBridges(mappings.zigbee2mqtt)
        for skipped in stored?.skipped ?? [] { notice(.warning, .store, "database: \(skipped)") }
        for accessory in mappings.accessories { addExplicit(accessory) }
        placeKnown(stored?.inventories ?? [])
        automation.load(
            actionSets: stored?.actionSets ?? [], triggers: stored?.triggers ?? [], runtimes: stored?.runtimes ?? [:], now: now,
            value: table.currentValue)
        step.treeChanged = true
    }

    public var accessories: [Accessory] { table.accessories }
    public var accessoryCount: Int { table.count }
    /// When each accessory's device last reported, for those that have since the start.
    public var lastSeen: [String: Date] { table.lastSeen }
    /// Homes, rooms, zones and where each accessory is.
    public var structure: HomeStructure { layout.structure }
    /// How many action sets and triggers there are, for the log.
    public var automationCounts: (actionSets: Int, triggers: Int) { (automation.actionSets.count, automation.triggers.count) }
    public func accessory(_ id: String) -> Accessory? { table[id]?.accessory }
    /// The time zone a trigger's local times are in when it names none.
    public var timeZone: TimeZone { automation.clock.timeZone }

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
    public mutating func pace(limit: Int = 50) -> [DeviceCommand] { table.pace(limit: limit) }

    /// When the next timer, sun event or deadline is due, for the service to wake up on time.
    public mutating func nextDue() -> Date? { automation.nextDue() }

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
        where table[id].map({ $0.accessory.reachable != before }) == true {
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
        for id in step.dirtyStates.sorted() where table[id] != nil { out.append(.stateChanged(id)) }
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
