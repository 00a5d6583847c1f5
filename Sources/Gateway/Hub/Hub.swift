import Automation
public import Foundation
public import HomeModel
import JSON
public import Mappings

/// The home and the adapters around it, as one value: the core holds the home; the device sources
/// read device topics into its inputs and write its device commands as messages; the MQTT API reads
/// `set/` and `request/` into its commands and renders what it produces as topics; commands from
/// inside the process (HTTP, HomeKit) get typed answers, and the live streams typed events. Pure:
/// the runtime (`GatewayRuntime`) owns it and does the I/O.
public struct Hub: Sendable {
    public internal(set) var core: HomeCore
    /// The device side: which topics are Zigbee2MQTT's and which a `source: mqtt` accessory's.
    public private(set) var devices: DeviceSources
    var mqtt: MQTTAPI
    /// Device messages larger than this are dropped (a bridge's device list excepted).
    let maxPayloadBytes: Int
    /// Device messages received, and those dropped for their size.
    var received = (messages: 0, oversized: 0)
    var notices: [HomeCore.Notice] = []
    /// Tickets of commands from inside the process, until answered.
    var local: Set<Ticket> = []
    var lastTicket: UInt64 = 0

    public init(baseTopic: String, core: HomeCore, maxPayloadBytes: Int = 256 * 1024) {
        self.core = core
        self.maxPayloadBytes = maxPayloadBytes
        mqtt = MQTTAPI(baseTopic: baseTopic)
        devices = DeviceSources(mappings: core.mappings)
    }

    /// Whether the bridges' device lists come on a connection of their own (`mqtt.lists_connection`):
    /// then `subscriptions` leaves them to `listSubscriptions`.
    public var listsApart = false

    /// Whether a large house's tree (`homegate/accessories`) is left to the runtime to render and
    /// publish after the step (`HubOutput.tree`), off the path of the messages: with 10,000
    /// accessories it is 18 MB, a quarter of a second to write. Once a tree went so, every later
    /// one does (they go out in order, one way).
    public var treeApart = false
    /// Accessories from which the tree is left to the runtime, with `treeApart`.
    public static let treeApartFrom = 1_000
    private var treeWentApart = false

    /// Every topic filter the gateway needs right now on its main connection: its own command
    /// topics and the devices'.
    public var subscriptions: Set<String> {
        let devices = listsApart ? devices.subscriptions { core.multiLevelNames(bridge: $0) } : devices.subscriptions
        return devices.union(mqtt.topics.subscriptions)
    }

    /// The filters of the device lists' own connection: none unless `listsApart`.
    public var listSubscriptions: Set<String> { listsApart ? devices.listFilters : [] }

    /// Whether `filter` is one of the gateway's own `set/` or `request/` subscriptions.
    public func isCommandFilter(_ filter: String) -> Bool { mqtt.isCommandFilter(filter) }

    public var counters: GatewayCounters {
        var counters = core.counters
        counters.messages += received.messages
        counters.oversized += received.oversized
        counters.invalid += mqtt.refused.invalid
        counters.retainedCommands += mqtt.refused.retained
        return counters
    }

    public mutating func drainNotices() -> [HomeCore.Notice] {
        defer { (notices, mqtt.notices) = ([], []) }
        return notices + mqtt.notices + core.drainNotices()
    }

    private mutating func ticket() -> Ticket {
        lastTicket += 1
        return Ticket(lastTicket)
    }

    /// One batch of received messages: commands to the core in the order they came, among the device
    /// messages. The messages are let go once read: the core works with what they said, not with
    /// their payloads (a bridge's device list is megabytes).
    public mutating func handle(_ messages: consuming [Incoming], now: Date = Date()) -> HubOutput {
        var inputs: [CoreInput] = []
        inputs.reserveCapacity(messages.count)
        var refusals: [Outgoing] = []
        for message in messages {
            guard mqtt.owns(message.topic) else {
                read(message) { inputs.append($0) }
                continue
            }
            switch mqtt.read(message, timeZone: core.timeZone) {
            case .command(let command, let origin):
                let ticket = ticket()
                mqtt.waiting[ticket] = origin
                inputs.append(.command(command, ticket))
            case .refused(let answer):
                if let answer { refusals.append(answer) }
            }
        }
        messages = []
        var output = render(core.handle(inputs, now: now))
        if !refusals.isEmpty { output.messages.insert(contentsOf: refusals, at: 0) }
        return output
    }

    /// A device message, as the device sources read it.
    private mutating func read(_ message: Incoming, _ take: (CoreInput) -> Void) {
        let topic = message.topic
        received.messages += 1
        if let read = message.read {
            // Read where it lay, as routed then; a bridge removed since is ignored, as its messages are.
            if devices.isInventory(topic) { take(.device(read, retained: message.retained)) }
            return
        }
        guard message.payload.count <= maxPayloadBytes || devices.isInventory(topic) else {
            // Nothing reads it (a bridge's `bridge/definitions`, say): let go as any unread message, unwarned.
            guard devices.reads(topic) else { return }
            received.oversized += 1
            notices.append(
                .init(
                    level: .warning, component: .devices,
                    message: "dropped a \(message.payload.count)-byte message on \(topic): over max_payload_bytes (\(maxPayloadBytes))"))
            return
        }
        devices.read(topic, message.payload) { take(.device($0, retained: message.retained)) }
    }

    /// One batch, with what waits for the store rendered after it as though stored at once: for
    /// tests and the fuzz targets, which run no store.
    public mutating func handleStored(_ messages: consuming [Incoming], now: Date = Date()) -> HubOutput {
        var output = handle(messages, now: now)
        let after = committed(output.afterCommit, time: output.time)
        output.afterCommit = []
        output.messages += after.first + after.messages
        output.events += after.events
        output.answers += after.answers
        output.treeChanged = output.treeChanged || after.treeChanged
        return output
    }

    /// A command from inside the process: its answer comes in this output's `answers` or a later
    /// one's, under the ticket returned.
    public mutating func perform(_ command: HomeCommand, now: Date = Date()) -> (Ticket, HubOutput) {
        let ticket = ticket()
        local.insert(ticket)
        return (ticket, render(core.handle([.command(command, ticket)], now: now)))
    }

    /// Events from beside the core (a mapping file that broke or loads again), to every front end.
    public mutating func announce(_ events: [HomeEvent], now: Date = Date()) -> HubOutput {
        var output = HubOutput(time: now)
        render(events.map { .event($0) }, at: now, into: &output, unstored: nil)
        return output
    }

    /// Time passing: expired reads, paced refreshes, timers and deadlines.
    public mutating func tick(now: Date = Date()) -> HubOutput { render(core.tick(now: now)) }

    /// The next paced state requests for devices (see `HomeCore.pace`).
    public mutating func pace() -> [Outgoing] { core.pace().map(DeviceSources.message(for:)) }

    /// Mapping files changed.
    public mutating func reload(_ mappings: MappingSet, now: Date = Date()) -> HubOutput {
        devices = DeviceSources(mappings: mappings)
        return render(core.reload(mappings, now: now))
    }

    /// What waited for the store, once it is committed; `unstored` when it could not be, and why
    /// (replies then say so; the rest goes as it is).
    public mutating func committed(_ effects: [CoreEffect], time: Date, unstored: String? = nil) -> HubOutput {
        var output = HubOutput(time: time)
        render(effects, at: time, into: &output, unstored: unstored)
        return output
    }

    private mutating func render(_ core: consuming CoreOutput) -> HubOutput {
        var output = HubOutput(time: core.time)
        output.first = core.first.map(DeviceSources.message(for:))
        swap(&output.store, &core.store)
        swap(&output.afterCommit, &core.afterCommit)
        render(core.now, at: core.time, into: &output, unstored: nil)
        return output
    }

    private mutating func render(_ effects: [CoreEffect], at date: Date, into output: inout HubOutput, unstored: String?) {
        var time: String?
        output.messages.reserveCapacity(output.messages.count + effects.count)
        for effect in effects {
            switch effect {
            case .device(let command):
                output.messages.append(DeviceSources.message(for: command))
            case .event(let event):
                let formatted = time ?? instantText(date)
                time = formatted
                output.messages.append(mqtt.message(for: event, time: formatted))
                output.events.append(event)
                switch event {
                case .home, .room, .zone: output.treeChanged = true  // a selector by place may select others now
                default: break
                }
            case .reply(let reply):
                if local.remove(reply.ticket) != nil {
                    output.answers.append((reply.ticket, Answer(reply, unstored: unstored)))
                } else if let answer = mqtt.answer(reply, unstored: unstored) {
                    output.messages.append(answer)
                }
            case .stateChanged(let id):
                guard let accessory = core.accessory(id) else { continue }
                output.messages.append(mqtt.stateMessage(id, accessory))
            case .stateRemoved(let id):
                output.messages.append(mqtt.stateMessage(id, nil))
            case .treeChanged:
                if treeApart, treeWentApart || core.accessoryCount >= Self.treeApartFrom {
                    treeWentApart = true
                    output.tree = core.accessories
                } else {
                    output.messages.append(mqtt.treeMessage(core.accessories))
                }
                output.treeChanged = true
            }
        }
    }
}

/// What one step of the hub produced.
public struct HubOutput: Sendable {
    /// Writes and requests to devices: published before anything else of the step.
    public var first: [Outgoing] = []
    /// Messages to publish now: events, states, the tree, replies, other device messages.
    public var messages: [Outgoing] = []
    /// The step's events, typed, for the live streams; `time` is when they happened.
    public var events: [HomeEvent] = []
    public var time: Date
    /// Answers to commands from inside the process, by the ticket `Hub.perform` gave.
    public var answers: [(ticket: Ticket, answer: Answer)] = []
    /// The changes to store, and what waits until they are (`Hub.committed`).
    public var store = StoreBatch()
    public var afterCommit: [CoreEffect] = []
    /// Whether the step changed the accessory tree (MQTT's tree message is among `messages`, or in
    /// `tree`) or a home, room or zone: the front ends in the process are told once (`TreeChanges`).
    public var treeChanged = false
    /// The accessories of a tree left to the runtime to render and publish (`Hub.treeApart`).
    public var tree: [Accessory]?

    init(time: Date) { self.time = time }

    /// The messages in the order they are published.
    public var all: [Outgoing] { first + messages }

    /// Whether it is a megabyte or more of messages: worth giving the memory back once let go.
    var isLarge: Bool { first.reduce(0) { $0 + $1.payload.count } + messages.reduce(0) { $0 + $1.payload.count } >= 1 << 20 }
}
