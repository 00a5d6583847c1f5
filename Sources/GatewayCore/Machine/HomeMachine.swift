import Automation
public import Foundation
import HomeModel
public import Mappings

/// The home with its device side, as one pure value: the core (`HomeCore`) holds the home; the
/// device sources read device topics into its inputs and write its device commands as messages;
/// commands from the front ends come in with tickets and their replies go out under them. Each step
/// (a batch of messages, a command, a tick, a reload) returns an `Output` that every front end reads
/// the same way. It knows no front end's protocol: the MQTT API, a peer like the HTTP API and the
/// HomeKit bridge, reads its own topics into commands (`BrokerPeer`) and renders the output itself.
/// The runtime (`HomeGateway.Runtime`) owns it and does the I/O.
public struct HomeMachine: Sendable {
    public internal(set) var core: HomeCore
    /// The device side: which topics are Zigbee2MQTT's and which a `source: mqtt` accessory's.
    public private(set) var devices: DeviceSources
    /// Device messages larger than this are dropped (a bridge's device list excepted).
    let maxPayloadBytes: Int
    /// Device messages received, and those dropped for their size.
    var received = (messages: 0, oversized: 0)
    var notices: [HomeCore.Notice] = []
    var lastTicket: UInt64 = 0

    public init(core: HomeCore, maxPayloadBytes: Int = 256 * 1024) {
        self.core = core
        self.maxPayloadBytes = maxPayloadBytes
        devices = DeviceSources(mappings: core.mappings)
    }

    /// Whether the bridges' device lists come on a connection of their own (`mqtt.lists_connection`):
    /// then `subscriptions` leaves them to `listSubscriptions`.
    public var listsApart = false

    /// Every device topic filter the gateway needs right now on its main connection.
    public var subscriptions: Set<String> {
        listsApart ? devices.subscriptions { core.multiLevelNames(bridge: $0) } : devices.subscriptions
    }

    /// The filters of the device lists' own connection: none unless `listsApart`.
    public var listSubscriptions: Set<String> { listsApart ? devices.listFilters : [] }

    public var counters: GatewayCounters {
        var counters = core.counters
        counters.messages += received.messages
        counters.oversized += received.oversized
        return counters
    }

    public mutating func drainNotices() -> [HomeCore.Notice] {
        defer { notices = [] }
        return notices + core.drainNotices()
    }

    /// A new ticket for a command: its reply comes in this step's `Output.replies` or a later one's.
    public mutating func ticket() -> Ticket {
        lastTicket += 1
        return Ticket(lastTicket)
    }

    /// One batch of received messages: the device messages read by the device sources, and the
    /// peer's own (`set/`, `request/`) turned into commands where they came among them. The
    /// messages are let go once read: the core works with what they said, not with their payloads
    /// (a bridge's device list is megabytes).
    public mutating func handle<Peer: BrokerPeer>(
        _ messages: consuming [Incoming], peer: inout Peer, now: Date = Date()
    ) -> Output {
        var inputs: [CoreInput] = []
        inputs.reserveCapacity(messages.count)
        for message in messages {
            if peer.owns(message.topic) {
                let ticket = ticket()
                if let command = peer.command(for: message, ticket: ticket, timeZone: core.timeZone) {
                    inputs.append(.command(command, ticket))
                }
            } else {
                read(message) { inputs.append($0) }
            }
        }
        messages = []
        return output(core.handle(inputs, now: now))
    }

    /// Device messages alone (no peer reads any).
    public mutating func handle(_ messages: consuming [Incoming], now: Date = Date()) -> Output {
        var none = NoPeer()
        return handle(messages, peer: &none, now: now)
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

    /// A command from a front end in the process: its reply comes in this output's `replies` or a
    /// later one's, under the ticket returned.
    public mutating func perform(_ command: HomeCommand, now: Date = Date()) -> (Ticket, Output) {
        let ticket = ticket()
        return (ticket, output(core.handle([.command(command, ticket)], now: now)))
    }

    /// Events from beside the core (a mapping file that broke or loads again), to every front end.
    public mutating func announce(_ events: [HomeEvent], now: Date = Date()) -> Output {
        var output = Output(time: now)
        take(events.map { .event($0) }, into: &output)
        return output
    }

    /// Time passing: expired reads, paced refreshes, timers and deadlines.
    public mutating func tick(now: Date = Date()) -> Output { output(core.tick(now: now)) }

    /// The next paced state requests for devices (see `HomeCore.pace`).
    public mutating func pace() -> [Outgoing] { core.pace().map(DeviceSources.message(for:)) }

    /// When the next timer, sun event or deadline is due.
    public mutating func nextDue() -> Date? { core.nextDue() }

    /// The broker connection is back: devices are asked for their state again (paced).
    public mutating func refreshAfterReconnect() { core.refreshAfterReconnect() }

    /// Mapping files changed.
    public mutating func reload(_ mappings: MappingSet, now: Date = Date()) -> Output {
        devices = DeviceSources(mappings: mappings)
        return output(core.reload(mappings, now: now))
    }

    /// What waited for the store, once it is committed; `unstored` when it could not be, and why
    /// (replies then say so; the rest goes as it is).
    public mutating func committed(_ effects: [CoreEffect], time: Date, unstored: String? = nil) -> Output {
        var output = Output(time: time)
        output.unstored = unstored
        take(effects, into: &output)
        return output
    }

    /// One batch, with what waits for the store taken as though stored at once: for tests and the
    /// fuzz targets, which run no store.
    public mutating func handleStored<Peer: BrokerPeer>(
        _ messages: consuming [Incoming], peer: inout Peer, now: Date = Date()
    ) -> Output {
        storedAtOnce(handle(messages, peer: &peer, now: now))
    }

    /// `output` with what waited for its store taken at once, as though stored the moment it was
    /// made: for a gateway with no store (tests, the fuzz targets, the surface in memory).
    public mutating func storedAtOnce(_ output: consuming Output) -> Output {
        var output = output
        let held = output.afterCommit
        output.afterCommit = []
        output.append(committed(held, time: output.time))
        return output
    }

    private mutating func output(_ core: consuming CoreOutput) -> Output {
        var output = Output(time: core.time)
        output.devices = core.first.map(DeviceSources.message(for:))
        swap(&output.store, &core.store)
        swap(&output.afterCommit, &core.afterCommit)
        take(core.now, into: &output)
        return output
    }

    /// The core's effects, typed for the front ends: each event's JSON written once, the
    /// accessories' states and the tree as they are at the step's end.
    private func take(_ effects: [CoreEffect], into output: inout Output) {
        var formatted: String?
        for effect in effects {
            switch effect {
            case .device(let command):
                output.devices.append(DeviceSources.message(for: command))
            case .event(let event):
                let time = formatted ?? instantText(output.time)
                formatted = time
                output.events.append(StreamEvent(event, time: output.time, formatted: time))
                switch event {
                case .home, .room, .zone: output.treeChanged = true  // a selector by place may select others now
                default: break
                }
            case .reply(let reply):
                output.replies.append(reply)
            case .stateChanged(let id):
                guard let accessory = core.accessory(id) else { continue }
                output.states.append(AccessoryState(id: id, accessory: accessory))
            case .stateRemoved(let id):
                output.states.append(AccessoryState(id: id, accessory: nil))
            case .treeChanged:
                output.tree = core.accessories
                output.treeChanged = true
            }
        }
    }
}

/// A front end whose commands come as messages among the devices' on the same connection (the MQTT
/// API's `set/` and `request/`): the machine hands it the messages on its topics where they come in
/// a batch, so that its commands and the device messages are handled in the order they came.
public protocol BrokerPeer {
    /// Whether `topic` is one of its own.
    func owns(_ topic: String) -> Bool
    /// The command a message on one of its topics asks for, under `ticket` (its reply comes under
    /// it); nil when it refuses the message (it answers or logs that itself).
    mutating func command(for message: Incoming, ticket: Ticket, timeZone: TimeZone) -> HomeCommand?
}

/// No peer: every message is a device's.
struct NoPeer: BrokerPeer {
    func owns(_ topic: String) -> Bool { false }
    func command(for message: Incoming, ticket: Ticket, timeZone: TimeZone) -> HomeCommand? { nil }
}
