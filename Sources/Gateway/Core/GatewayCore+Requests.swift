import Foundation
import HomeModel
import JSON
import Mappings

extension GatewayCore {
    /// Every `homegate/request/<command>` the core answers.
    public static var commands: [String] { ["characteristic/write", "characteristic/read", "accessories"] + homeCommands.keys.sorted() }

    /// `homegate/request/<command>`, answered on `homegate/response/<command>` with `transaction` echoed.
    mutating func handleRequest(_ message: Incoming) {
        let command = String(message.topic.dropFirst(topics.requestPrefix.count))
        let body: JSONValue
        if message.payload.isEmpty {
            body = [:]
        } else {
            do {
                body = try JSONValue(parsing: message.payload)
            } catch {
                counters.invalid += 1
                return respond(command, nil, .failure(WriteProblem(description: "the request is not JSON: \(error)")))
            }
        }
        guard case .object = body else {
            counters.invalid += 1
            return respond(command, nil, .failure(WriteProblem(description: "the request must be a JSON object")))
        }
        let transaction = body["transaction"]
        switch command {
        case "characteristic/write": writeRequest(body, transaction)
        case "characteristic/read": readRequest(body, transaction)
        case "accessories":
            do {
                try Request(body: body).only([])
                respond(command, transaction, .success(["accessories": .array(accessories.map(\.treeJSON))]))
            } catch {
                counters.invalid += 1
                respond(command, transaction, .failure(WriteProblem(description: "\(error)")))
            }
        default:
            guard let handler = Self.homeCommands[command] else {
                counters.invalid += 1
                return respond(command, transaction, .failure(WriteProblem(description: "unknown command '\(command)'\(didYouMean(command, Self.commands))")))
            }
            // A change to the home is answered once it is stored.
            deferring = handler.changes
            defer { deferring = false }
            do {
                respond(command, transaction, .success(try handler.run(&self, Request(body: body))))
            } catch let error as RequestError where error.data != nil {
                respond(command, transaction, .failure(WriteProblem(description: error.description)), data: error.data)
            } catch {
                counters.invalid += 1
                respond(command, transaction, .failure(WriteProblem(description: "\(error)")))
            }
        }
    }

    /// `"status": "ok", "value": 80` or `"status": "error", "error": "..."`: one write's result.
    static func describe(_ outcome: Result<CharacteristicValue, WriteProblem>, into result: inout [String: JSONValue]) {
        switch outcome {
        case .success(let value):
            result["status"] = "ok"
            result["value"] = value.json
        case .failure(let problem):
            result["status"] = "error"
            result["error"] = .string(problem.description)
        }
    }

    mutating func respond(_ command: String, _ transaction: JSONValue?, _ result: Result<JSONValue, WriteProblem>, data: JSONValue? = nil) {
        var payload: [String: JSONValue]
        switch result {
        case .success(let data): payload = ["status": "ok", "data": data]
        case .failure(let problem): payload = ["status": "error", "error": .string(problem.description)]
        }
        if let data { payload["data"] = data }
        if let transaction { payload["transaction"] = transaction }
        var answer = Outgoing(topics.response(command), JSONValue.object(payload).serializedBytes(), qos: 1)
        answer.isAnswer = true
        emit(answer)
    }

    /// `{"transaction":1,"writes":[{"accessory":"lamp","service":"lightbulb","characteristic":"on","value":true}]}`.
    mutating func writeRequest(_ body: JSONValue, _ transaction: JSONValue?) {
        let command = "characteristic/write"
        do {
            try Request(body: body).only(["writes"])
        } catch {
            return respond(command, transaction, .failure(WriteProblem(description: "\(error)")))
        }
        guard let items = body["writes"]?.arrayValue, !items.isEmpty else {
            return respond(command, transaction, .failure(WriteProblem(description: "expected \"writes\": a non-empty list of {accessory, service, characteristic, value}")))
        }
        var requests: [WriteRequest?] = []
        var entryProblems: [String?] = []
        for item in items {
            do {
                try Request(body: item).only(["accessory", "service", "characteristic", "value"])
                guard let (a, s, c) = Self.characteristicReference(item), let v = item["value"] else { throw RequestError("") }
                requests.append(WriteRequest(accessory: a, service: s, characteristic: c, value: v))
                entryProblems.append(nil)
            } catch {
                requests.append(nil)
                entryProblems.append("\(error)".isEmpty ? nil : "\(error)")
            }
        }
        var outcomes = write(requests.compactMap { $0 }, source: .api).makeIterator()
        var results: [JSONValue] = []
        var failures = 0
        for ((item, request), entryProblem) in zip(zip(items, requests), entryProblems) {
            var result: [String: JSONValue] = [:]
            for key in ["accessory", "service", "characteristic"] { if let v = item[key] { result[key] = v } }
            if request == nil {
                result["status"] = "error"
                result["error"] = .string(entryProblem ?? "each write needs a value and either \"characteristic\": \"accessory/service/characteristic\" "
                    + "or accessory, service and characteristic")
                failures += 1
            } else {
                let outcome = outcomes.next()!
                Self.describe(outcome, into: &result)
                if case .failure = outcome { failures += 1 }
            }
            results.append(.object(result))
        }
        if failures == 0 {
            respond(command, transaction, .success(["results": .array(results)]))
        } else {
            respond(command, transaction, .failure(WriteProblem(description: "\(failures) of \(items.count) writes failed")),
                    data: ["results": .array(results)])
        }
    }

    /// `{"accessory":"lamp","service":"lightbulb","characteristic":"brightness"}`: asks the device
    /// and answers when it reports; a device that cannot be asked gets the value as last known.
    mutating func readRequest(_ body: JSONValue, _ transaction: JSONValue?) {
        let command = "characteristic/read"
        do {
            try Request(body: body).only(["accessory", "service", "characteristic"])
        } catch {
            return respond(command, transaction, .failure(WriteProblem(description: "\(error)")))
        }
        guard let (a, s, c) = Self.characteristicReference(body) else {
            return respond(command, transaction, .failure(WriteProblem(
                description: "expected \"characteristic\": \"accessory/service/characteristic\", or accessory, service and characteristic")))
        }
        guard let entry = entries[a] else { return respond(command, transaction, .failure(WriteProblem(description: "\(a): no such accessory"))) }
        guard let characteristic = entry.accessory[s]?[c] else {
            let problem = entry.accessory[s] == nil ? HomeModelError.unknownService(accessory: a, service: s)
                : HomeModelError.unknownCharacteristic(accessory: a, service: s, characteristic: c)
            return respond(command, transaction, .failure(WriteProblem(description: problem.description)))
        }
        guard characteristic.type.isReadable else {
            return respond(command, transaction, .failure(WriteProblem(description: "\(a)/\(s)/\(c): is write-only: the device does not report it")))
        }
        let key = CharacteristicKey(accessory: a, service: s, characteristic: c)
        guard entry.accessory.reachable else {
            // As a write is: at once, not after waiting for a device that cannot answer.
            return respond(command, transaction, .failure(WriteProblem(description: "\(a): is not reachable; data has the last known value")),
                           data: readResult(key, characteristic.value, fresh: false))
        }
        if let request = deviceRead(entry, key) {
            emit(request)
            pendingReads.append(PendingRead(key: key, transaction: transaction, deadline: now.addingTimeInterval(3)))
        } else {
            respond(command, transaction, .success(readResult(key, characteristic.value, fresh: false)))
        }
    }

    /// `"characteristic": "lamp/lightbulb/on"` (the form action sets and triggers use), or
    /// `accessory`, `service` and `characteristic` side by side.
    static func characteristicReference(_ object: JSONValue) -> (String, String, String)? {
        if object["accessory"] == nil, object["service"] == nil, let text = object["characteristic"]?.stringValue {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
            return (String(parts[0]), String(parts[1]), String(parts[2]))
        }
        guard let a = object["accessory"]?.stringValue, let s = object["service"]?.stringValue, let c = object["characteristic"]?.stringValue else { return nil }
        return (a, s, c)
    }

    /// The `/get` (or get topic) that makes the device report this characteristic, if there is one.
    func deviceRead(_ entry: Entry, _ key: CharacteristicKey) -> Outgoing? {
        switch entry.source {
        case .zigbee2mqtt(let bridge, let mapping):
            guard !mapping.gettableKeys.isEmpty else { return nil }
            return getRequest(mapping, base: bridges[bridge].source.baseTopic)
        case .explicit(let mapping):
            guard let get = mapping.bindings.first(where: { $0.service == key.service && $0.characteristic == key.characteristic })?.get else { return nil }
            return Outgoing(get.topic, Array(get.payload.utf8), qos: 1)
        }
    }

    func readResult(_ key: CharacteristicKey, _ value: CharacteristicValue?, fresh: Bool) -> JSONValue {
        ["accessory": .string(key.accessory), "service": .string(key.service), "characteristic": .string(key.characteristic),
         "value": value?.json ?? .null, "fresh": .bool(fresh)]
    }

    mutating func answerReads(for key: CharacteristicKey, value: CharacteristicValue) {
        guard !pendingReads.isEmpty else { return }
        let answered = pendingReads.filter { $0.key == key }
        guard !answered.isEmpty else { return }
        pendingReads.removeAll { $0.key == key }
        for read in answered {
            respond("characteristic/read", read.transaction, .success(readResult(key, value, fresh: true)))
        }
    }

    mutating func expirePending() {
        pendingWrites = pendingWrites.compactMapValues { writes in
            let live = writes.filter { $0.deadline >= now }
            return live.isEmpty ? nil : live
        }
        let expired = pendingReads.filter { $0.deadline < now }
        pendingReads.removeAll { $0.deadline < now }
        for read in expired {
            let last = entries[read.key.accessory]?.accessory[read.key.service]?[read.key.characteristic]?.value
            var payload: [String: JSONValue] = [
                "status": "error", "error": .string("\(read.key.accessory): the device did not answer within 3 s"),
                "data": readResult(read.key, last, fresh: false),
            ]
            if let transaction = read.transaction { payload["transaction"] = transaction }
            emit(Outgoing(topics.response("characteristic/read"), JSONValue.object(payload).serializedBytes(), qos: 1))
        }
    }
}
