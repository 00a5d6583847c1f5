import Automation
public import Foundation
import HomeModel
import JSON
public import Mappings

/// The MQTT API over the home: `<base>/set/…` and `<base>/request/<command>` become typed
/// commands, and what the core produces becomes messages: events on `<base>/event/…`, replies on
/// `<base>/response/<command>` with the request's `transaction`, the retained `state/<id>` and
/// `accessories`, and device messages as they are. Pure, like the core; the runtime does the I/O.
public struct MQTTFrontEnd: Sendable {
    public internal(set) var core: HomeCore
    /// The device side: which topics are Zigbee2MQTT's and which a `source: mqtt` accessory's.
    public private(set) var devices: DeviceSources
    let topics: Topics
    /// Device messages larger than this are dropped (a bridge's device list excepted).
    let maxPayloadBytes: Int
    /// Device messages received, and those dropped for their size.
    var received = (messages: 0, oversized: 0)
    /// What each ticket stands for, until its reply is published.
    var waiting: [Ticket: Origin] = [:]
    var lastTicket: UInt64 = 0
    /// Requests and writes refused before they reached the core.
    var refused = (invalid: 0, retained: 0)
    var notices: [HomeCore.Notice] = []
    /// The size of the tree written last: the next is written into room for it, not grown by doubling.
    var treeBytes = 0
    /// Where writes to devices go the moment a step of the core has made them, before its store
    /// changes are collected and its events and states rendered (the running gateway publishes
    /// them); without it they lead the step's messages.
    var sendFirst: (@Sendable ([Outgoing]) -> Void)? {
        didSet {
            // The core hands them over as soon as the step's fires have run (`HomeCore.sendFirst`).
            guard let send = sendFirst else {
                core.sendFirst = nil
                return
            }
            core.sendFirst = { @Sendable commands in send(commands.map { DeviceSources.message(for: $0) }) }
        }
    }

    /// A request refused before it reached the core, with its answer.
    struct Refused: Error {
        var answer: Outgoing
    }

    enum Origin {
        /// `request/<command>`; a write request keeps its entries, to answer each.
        case request(command: String, transaction: JSONValue?, writes: WriteBatch?)
        /// `set/<accessory>/<service>/<characteristic>`: no answer, a failure is logged.
        case set(topic: String)
        /// A command from inside the process (the HTTP API), answered with a `LocalAnswer`.
        case local(id: UInt64, writes: WriteBatch?)
    }

    public init(baseTopic: String, core: HomeCore, maxPayloadBytes: Int = 256 * 1024) {
        topics = Topics(base: baseTopic)
        self.core = core
        self.maxPayloadBytes = maxPayloadBytes
        devices = DeviceSources(mappings: core.mappings)
    }

    /// Every topic filter the gateway needs right now: its own command topics and the devices'.
    public var subscriptions: Set<String> { devices.subscriptions.union(topics.subscriptions) }

    /// Whether `filter` is one of the gateway's own `set/` or `request/` subscriptions.
    public func isCommandFilter(_ filter: String) -> Bool { topics.subscriptions.contains(filter) }

    public var counters: GatewayCounters {
        var counters = core.counters
        counters.messages += received.messages
        counters.oversized += received.oversized
        counters.invalid += refused.invalid
        counters.retainedCommands += refused.retained
        return counters
    }

    public mutating func drainNotices() -> [HomeCore.Notice] {
        defer { notices = [] }
        return notices + core.drainNotices()
    }

    /// One batch of received messages: commands to the core in the order they came, among the device
    /// messages. The messages are let go once read: the core works with what they said, not with
    /// their payloads (a bridge's device list is megabytes).
    public mutating func handle(_ messages: consuming [Incoming], now: Date = Date()) -> GatewayOutput {
        var inputs: [CoreInput] = []
        inputs.reserveCapacity(messages.count)
        var early: [Outgoing] = []
        for message in messages {
            let topic = message.topic
            let isSet = topic.hasPrefix(topics.setPrefix)
            let isRequest = topic.hasPrefix(topics.requestPrefix)
            guard isSet || isRequest else {
                received.messages += 1
                if let read = message.read {
                    // Read where it lay, as routed then; a bridge removed since is ignored, as its messages are.
                    if devices.isInventory(topic) { inputs.append(.device(read, retained: message.retained)) }
                    continue
                }
                guard message.payload.count <= maxPayloadBytes || devices.isInventory(topic) else {
                    // Nothing reads it (a bridge's `bridge/definitions`, say): let go as any unread message, unwarned.
                    guard devices.reads(topic) else { continue }
                    received.oversized += 1
                    notices.append(
                        .init(
                            level: .warning, component: .devices,
                            message:
                                "dropped a \(message.payload.count)-byte message on \(topic): over max_payload_bytes (\(maxPayloadBytes))"))
                    continue
                }
                devices.read(topic, message.payload) { inputs.append(.device($0, retained: message.retained)) }
                continue
            }
            if message.retained {
                refuseRetained(message, isRequest: isRequest).map { early.append($0) }
            } else if isSet {
                if let command = setCommand(message) { inputs.append(command) }
            } else {
                switch requestCommand(message) {
                case .success(let command): inputs.append(command)
                case .failure(let refusal): early.append(refusal.answer)
                }
            }
        }
        messages = []
        var output = render(core.handle(inputs, now: now))
        if !early.isEmpty { output.messages.insert(contentsOf: early, at: 0) }
        return output
    }

    /// Time passing: expired reads, paced refreshes, timers and deadlines.
    public mutating func tick(now: Date = Date()) -> GatewayOutput { render(core.tick(now: now)) }

    /// The next paced state requests for devices (see `HomeCore.pace`).
    public mutating func pace() -> [Outgoing] { core.pace().map(DeviceSources.message(for:)) }

    /// Mapping files changed.
    public mutating func reload(_ mappings: MappingSet, now: Date = Date()) -> GatewayOutput {
        devices = DeviceSources(mappings: mappings)
        return render(core.reload(mappings, now: now))
    }

    mutating func ticket(for origin: Origin) -> Ticket {
        lastTicket += 1
        let ticket = Ticket(lastTicket)
        waiting[ticket] = origin
        return ticket
    }

    /// `homegate/set/<accessory>/<service>/<characteristic>` with a JSON value.
    mutating func setCommand(_ message: Incoming) -> CoreInput? {
        let path = message.topic.dropFirst(topics.setPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard path.count == 3, path.allSatisfy({ !$0.isEmpty }) else {
            return refuseSet("\(message.topic): expected \(topics.setPrefix)<accessory>/<service>/<characteristic>")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: message.payload)
        } catch {
            return refuseSet("\(message.topic): the value is not JSON (\(error)); send true, 80 or \"text\"")
        }
        let write = WriteRequest(accessory: String(path[0]), service: String(path[1]), characteristic: String(path[2]), value: value)
        return .command(.values(.write([write])), ticket(for: .set(topic: message.topic)))
    }

    /// A `set/` message that is not a write: counted and logged (a set has no answer).
    private mutating func refuseSet(_ why: String) -> CoreInput? {
        refused.invalid += 1
        notices.append(.init(level: .warning, component: .api, message: why))
        return nil
    }

    /// `homegate/request/<command>`: the command, or the answer that refuses it.
    mutating func requestCommand(_ message: Incoming) -> Result<CoreInput, Refused> {
        let name = String(message.topic.dropFirst(topics.requestPrefix.count))
        var body: JSONValue = [:]
        if !message.payload.isEmpty {
            do {
                body = try JSONValue(parsing: message.payload)
            } catch {
                refused.invalid += 1
                return .failure(
                    Refused(answer: answer(name, nil, ["status": "error", "error": .string("the request is not JSON: \(error)")])))
            }
        }
        let transaction = body["transaction"]
        do throws(HomeError) {
            let (command, writes) = try parseRequest(name, body)
            return .success(.command(command, ticket(for: .request(command: name, transaction: transaction, writes: writes))))
        } catch {
            if name != "characteristic/write" && name != "characteristic/read" { refused.invalid += 1 }
            return .failure(Refused(answer: answer(name, transaction, ["status": "error", "error": .string(error.message)])))
        }
    }

    /// A request's command; a `characteristic/write` also keeps its entries, so that a malformed
    /// one fails alone and each is answered.
    func parseRequest(_ name: String, _ body: JSONValue) throws(HomeError) -> (HomeCommand, WriteBatch?) {
        if name == "characteristic/write", case .object = body {
            try RequestBody(body: body).only(["writes"])
            let writes = try WriteBatch(body)
            return (.values(.write(writes.requests)), writes)
        }
        return (try HomeCommand.parse(name, body, timeZone: core.timeZone), nil)
    }

    /// A command from inside the process (the HTTP API), by its request name and JSON body: its
    /// answer comes back as a `LocalAnswer` with `id`, now or once what it changed is stored.
    mutating func perform(_ name: String, _ body: JSONValue, id: UInt64, now: Date = Date()) -> GatewayOutput {
        do throws(HomeError) {
            let (command, writes) = try parseRequest(name, body)
            return render(core.handle([.command(command, ticket(for: .local(id: id, writes: writes)))], now: now))
        } catch {
            var output = GatewayOutput()
            output.answers = [LocalAnswer(id: id, error: error)]
            return output
        }
    }

    /// A retained write or request would act again on every reconnect ("open the garage" at each
    /// restart), so it never acts: a request is answered with why, a write is logged.
    mutating func refuseRetained(_ message: Incoming, isRequest: Bool) -> Outgoing? {
        refused.retained += 1
        let why =
            "\(message.topic) was published retained; writes and requests must not be retained (they would act again on every "
            + "reconnect), so it was not acted on. Publish it without retain, and clear the stored one with: mosquitto_pub -r -n -t '\(message.topic)'"
        guard isRequest else {
            notices.append(.init(level: .warning, component: .api, message: why))
            return nil
        }
        let command = String(message.topic.dropFirst(topics.requestPrefix.count))
        return answer(command, (try? JSONValue(parsing: message.payload))?["transaction"], ["status": "error", "error": .string(why)])
    }

    func answer(_ command: String, _ transaction: JSONValue?, _ fields: [String: JSONValue]) -> Outgoing {
        var payload = fields
        if let transaction { payload["transaction"] = transaction }
        var answer = Outgoing(topics.response(command), JSONValue.object(payload).serializedBytes(), qos: 1)
        answer.isAnswer = true
        return answer
    }

    // MARK: What the core produced, as messages

    mutating func render(_ output: consuming CoreOutput) -> GatewayOutput {
        var time: String?
        var rendered = GatewayOutput()
        swap(&rendered.store, &output.store)
        // Writes to devices lead the step's messages. With `sendFirst` set the core has handed them
        // over already, and there are none left here.
        rendered.messages = output.now.compactMap { effect -> Outgoing? in
            guard case .device(let command) = effect else { return nil }
            return DeviceSources.message(for: command)
        }
        rendered.messages.reserveCapacity(output.now.count)
        for effect in output.now {
            if case .device = effect { continue }
            if case .reply(let reply) = effect, let answer = localAnswer(reply) {
                rendered.answers.append(answer)
            } else if let message = render(effect, at: output.time, &time) {
                rendered.messages.append(message)
            }
        }
        for effect in output.afterCommit {
            if case .reply(let reply) = effect, let answer = localAnswer(reply) {
                rendered.answersAfterCommit.append(answer)
            } else if let message = render(effect, at: output.time, &time) {
                rendered.afterCommit.append(message)
            }
        }
        return rendered
    }

    /// The answer to a command from inside the process, or nil when the reply is for MQTT.
    private mutating func localAnswer(_ reply: Reply) -> LocalAnswer? {
        guard case .local(let id, let writes)? = waiting[reply.ticket] else { return nil }
        waiting[reply.ticket] = nil
        if let writes, case .writes(let outcomes) = reply.result {
            let (data, error) = writes.results(outcomes)
            return LocalAnswer(id: id, data: data, error: error)
        }
        return LocalAnswer(id: id, data: reply.result.map(HomeJSON.json), error: reply.error)
    }

    private mutating func render(_ effect: CoreEffect, at date: Date, _ time: inout String?) -> Outgoing? {
        switch effect {
        case .device(let command):
            return DeviceSources.message(for: command)
        case .event(let event):
            let formatted = time ?? instantText(date)
            time = formatted
            var message = Outgoing(topic(of: event), HomeJSON.eventPayload(event, time: formatted))
            message.isEvent = true
            return message
        case .reply(let reply):
            return answer(reply)
        case .stateChanged(let id):
            guard let accessory = core.accessory(id) else { return nil }
            return Outgoing(topics.state(id), accessory.statePayload, retain: true)
        case .stateRemoved(let id):
            return Outgoing(topics.state(id), [], retain: true)  // clears the retained state
        case .treeChanged:
            // Written accessory by accessory: the whole tree as one JSON value costs its size many times over.
            var tree: [UInt8] = []
            tree.reserveCapacity(treeBytes + treeBytes / 16)
            tree.append(contentsOf: #"{"accessories":["#.utf8)
            for (index, accessory) in core.accessories.enumerated() {
                if index > 0 { tree.append(UInt8(ascii: ",")) }
                accessory.treeJSON.write(to: &tree)
            }
            tree.append(contentsOf: "]}".utf8)
            treeBytes = tree.count
            return Outgoing(topics.accessories, tree, retain: true)
        }
    }

    func topic(of event: HomeEvent) -> String {
        switch event {
        case .characteristic(let change): topics.event(change.accessory, change.service, change.characteristic)
        case .accessory(let id, _, _): topics.structureEvent("accessory", id)
        case .home(let id, _, _, _): topics.structureEvent("home", id)
        case .room(let id, _, _): topics.structureEvent("room", id)
        case .zone(let id, _, _): topics.structureEvent("zone", id)
        case .actionSet(let id, _): topics.structureEvent("action_set", id)
        case .trigger(let id, _): topics.structureEvent("trigger", id)
        }
    }

    /// The answer on `response/<command>`, or for a `set/` write that failed, a log line.
    private mutating func answer(_ reply: Reply) -> Outgoing? {
        guard let origin = waiting.removeValue(forKey: reply.ticket) else { return nil }
        switch origin {
        case .local:
            return nil  // answered by `localAnswer`
        case .set(let topic):
            if case .writes(let outcomes) = reply.result, case .failure(let problem) = outcomes.first {
                refused.invalid += 1
                notices.append(.init(level: .warning, component: .api, message: "\(topic): \(problem)"))
            }
            return nil
        case .request(let command, let transaction, let writes):
            if let writes, case .writes(let outcomes) = reply.result {
                let (data, error) = writes.results(outcomes)
                var fields: [String: JSONValue] = error.map { ["status": "error", "error": .string($0.message)] } ?? ["status": "ok"]
                fields["data"] = data
                return answer(command, transaction, fields)
            }
            if reply.error != nil, reply.result == nil, command != "characteristic/read" { refused.invalid += 1 }
            return answer(command, transaction, HomeJSON.reply(reply))
        }
    }
}
