import Automation
import Foundation
import GatewayCore
import HomeModel
import JSON

/// The MQTT API, a peer of the other front ends: `<base>/set/…` and `<base>/request/<command>`
/// become typed commands (the machine hands it the messages on its topics where they come among
/// the devices', `BrokerPeer`), and each step's output becomes messages: events on
/// `<base>/event/…` (the payload the step wrote once for every stream), replies to its tickets on
/// `<base>/response/<command>` with the request's `transaction`, the retained `state/<id>` and
/// `accessories`. Pure; the runtime hands it the messages and the outputs and publishes what it renders.
struct MQTTAPI: BrokerPeer, Sendable {
    let topics: Topics
    /// What each of its tickets stands for, until its reply is rendered.
    var waiting: [Ticket: Origin] = [:]
    /// Answers to requests refused before they reached the core: they lead the next messages.
    var refusals: [Outgoing] = []
    /// Requests and writes refused before they reached the core, and `set/` writes the core refused.
    var refused = (invalid: 0, retained: 0)
    var notices: [HomeCore.Notice] = []
    /// The size of the tree written last: the next is written into room for it, not grown by doubling.
    var treeBytes = 0

    /// Whether a large house's tree (`<base>/accessories`) is left to the runtime to render and
    /// publish after the step (`Rendered.apart`, `TreePublisher`), off the path of the messages:
    /// with 10,000 accessories it is 18 MB, a quarter of a second to write. Once a tree went so,
    /// every later one does (they go out in order, one way).
    var treeApart = false
    /// Accessories from which the tree is left to the runtime, with `treeApart`.
    static let treeApartFrom = 1_000
    private var treeWentApart = false

    enum Origin {
        /// `request/<command>`; a write request keeps its entries, to answer each.
        case request(command: String, transaction: JSONValue?, writes: WriteBatch?)
        /// `set/<accessory>/<service>/<characteristic>`: no answer, a failure is logged.
        case set(topic: String)
    }

    /// What one of its messages asks: a command for the core, or an answer that refuses it (nil: refused silently, logged).
    enum Asked {
        case command(HomeCommand, Origin)
        case refused(Outgoing?)
    }

    init(baseTopic: String) {
        topics = Topics(base: baseTopic)
    }

    /// Whether `topic` is one of its own (`set/` or `request/`).
    func owns(_ topic: String) -> Bool { topic.hasPrefix(topics.setPrefix) || topic.hasPrefix(topics.requestPrefix) }

    /// The gateway's counters with what it refused.
    func counted(_ counters: GatewayCounters) -> GatewayCounters {
        var counters = counters
        counters.invalid += refused.invalid
        counters.retainedCommands += refused.retained
        return counters
    }

    /// Whether `filter` is one of its own subscriptions.
    func isCommandFilter(_ filter: String) -> Bool { topics.subscriptions.contains(filter) }

    /// A message on one of its topics, as the core's command; a refusal is answered (`refusals`) or logged.
    mutating func command(for message: Incoming, ticket: Ticket, timeZone: TimeZone) -> HomeCommand? {
        switch read(message, timeZone: timeZone) {
        case .command(let command, let origin):
            waiting[ticket] = origin
            return command
        case .refused(let answer):
            if let answer { refusals.append(answer) }
            return nil
        }
    }

    /// A message on one of its topics, read.
    private mutating func read(_ message: Incoming, timeZone: TimeZone) -> Asked {
        let isRequest = message.topic.hasPrefix(topics.requestPrefix)
        if message.retained {
            // Empty, it is the clearing of a stored one (`mosquitto_pub -r -n`, as the refusal says
            // to): no command, and nothing to answer or count.
            if message.payload.isEmpty { return .refused(nil) }
            return .refused(refuseRetained(message, isRequest: isRequest))
        }
        if !isRequest { return setCommand(message).map { .command($0, .set(topic: message.topic)) } ?? .refused(nil) }
        return requestCommand(message, timeZone: timeZone)
    }

    /// `homegate/set/<accessory>/<service>/<characteristic>` with a JSON value.
    private mutating func setCommand(_ message: Incoming) -> HomeCommand? {
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
        return .values(.write([WriteRequest(accessory: String(path[0]), service: String(path[1]), characteristic: String(path[2]), value: value)]))
    }

    /// A `set/` message that is not a write: counted and logged (a set has no answer).
    private mutating func refuseSet(_ why: String) -> HomeCommand? {
        refused.invalid += 1
        notices.append(.init(level: .warning, component: .api, message: why))
        return nil
    }

    /// `homegate/request/<command>`: the command, or the answer that refuses it.
    private mutating func requestCommand(_ message: Incoming, timeZone: TimeZone) -> Asked {
        let name = String(message.topic.dropFirst(topics.requestPrefix.count))
        var body: JSONValue = [:]
        if !message.payload.isEmpty {
            do {
                body = try JSONValue(parsing: message.payload)
            } catch {
                refused.invalid += 1
                return .refused(answer(name, nil, ["status": "error", "error": .string("the request is not JSON: \(error)")]))
            }
        }
        let transaction = body["transaction"]
        do throws(HomeError) {
            let (command, writes) = try HomeCommand.request(name, body, timeZone: timeZone)
            return .command(command, .request(command: name, transaction: transaction, writes: writes))
        } catch {
            if name != "characteristic/write" && name != "characteristic/read" { refused.invalid += 1 }
            return .refused(answer(name, transaction, ["status": "error", "error": .string(error.message)]))
        }
    }

    /// A retained write or request would act again on every reconnect ("open the garage" at each
    /// restart), so it never acts: a request is answered with why, a write is logged.
    private mutating func refuseRetained(_ message: Incoming, isRequest: Bool) -> Outgoing? {
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

    private func answer(_ command: String, _ transaction: JSONValue?, _ fields: [String: JSONValue]) -> Outgoing {
        var payload = fields
        if let transaction { payload["transaction"] = transaction }
        return Outgoing(topics.response(command), JSONValue.object(payload).serializedBytes(), qos: 1)
    }

    // MARK: What the core produced, as messages

    /// A step's output as MQTT renders it: its messages, and the accessories of a tree left to the
    /// runtime to publish after them (`treeApart`).
    struct Rendered {
        var messages: [Outgoing] = []
        var apart: [Accessory]?

        /// Whether it is a megabyte or more: worth giving the memory back once let go.
        var isLarge: Bool { messages.reduce(0) { $0 + $1.payload.count } >= 1 << 20 }
    }

    /// A step's output as messages (its device messages aside, which go first): answers it refused
    /// at once, the events, the states, the tree, the answers to its tickets.
    mutating func render(_ output: HomeMachine.Output) -> Rendered {
        var rendered = Rendered()
        rendered.messages.reserveCapacity(refusals.count + output.events.count + output.states.count + 1 + output.replies.count)
        if !refusals.isEmpty {
            rendered.messages += refusals
            refusals = []
        }
        for event in output.events { rendered.messages.append(Outgoing(topic(of: event.event), event.payload)) }
        for state in output.states { rendered.messages.append(stateMessage(state.id, state.accessory)) }
        if let tree = output.tree {
            if treeApart, treeWentApart || tree.count >= Self.treeApartFrom {
                treeWentApart = true
                rendered.apart = tree
            } else {
                rendered.messages.append(treeMessage(tree))
            }
        }
        for reply in output.replies {
            if let answer = answer(reply, unstored: output.unstored) { rendered.messages.append(answer) }
        }
        return rendered
    }

    /// `state/<id>`, retained; empty (which clears it) when the accessory is gone.
    func stateMessage(_ id: String, _ accessory: Accessory?) -> Outgoing {
        Outgoing(topics.state(id), accessory?.statePayload ?? [], retain: true)
    }

    /// The whole tree, written accessory by accessory: as one JSON value it costs its size many times over.
    mutating func treeMessage(_ accessories: [Accessory]) -> Outgoing {
        let tree = Self.tree(accessories, reserving: treeBytes + treeBytes / 16)
        treeBytes = tree.count
        return Outgoing(topics.accessories, tree, retain: true)
    }

    static func tree(_ accessories: [Accessory], reserving capacity: Int) -> [UInt8] {
        var tree: [UInt8] = []
        tree.reserveCapacity(capacity)
        tree.append(contentsOf: #"{"accessories":["#.utf8)
        for (index, accessory) in accessories.enumerated() {
            if index > 0 { tree.append(UInt8(ascii: ",")) }
            accessory.treeJSON.write(to: &tree)
        }
        tree.append(contentsOf: "]}".utf8)
        return tree
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
        case .mappingFile(let event): topics.structureEvent("mapping_file", event.name)
        }
    }

    /// The answer on `response/<command>` to one of its tickets, or for a `set/` write that failed, a
    /// log line. `unstored`: the change is made but could not be stored, and why.
    mutating func answer(_ reply: Reply, unstored: String?) -> Outgoing? {
        guard let origin = waiting.removeValue(forKey: reply.ticket) else { return nil }
        switch origin {
        case .set(let topic):
            if case .writes(let outcomes) = reply.result, case .failure(let problem) = outcomes.first {
                refused.invalid += 1
                notices.append(.init(level: .warning, component: .api, message: "\(topic): \(problem)"))
            }
            return nil
        case .request(let command, let transaction, let writes):
            var fields: [String: JSONValue]
            if let writes, case .writes(let outcomes) = reply.result {
                let (data, error) = writes.results(outcomes)
                fields = error.map { ["status": "error", "error": .string($0.message)] } ?? ["status": "ok"]
                fields["data"] = data
            } else {
                if reply.error != nil, reply.result == nil, command != "characteristic/read" { refused.invalid += 1 }
                fields = HomeJSON.reply(reply)
            }
            if let unstored, fields["status"] == "ok" { HomeJSON.describeUnstored(unstored, into: &fields) }
            return answer(command, transaction, fields)
        }
    }
}
