import Foundation
import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// Validates each write against the model and sends the accepted ones: one `/set` per
    /// Zigbee2MQTT device for all of its writes in this call, with the longest transition any of
    /// them asks for (one per `/set`: a two-gang dimmer's gangs share it).
    mutating func write(_ requests: [WriteRequest], source: ChangeSource) -> [Result<CharacteristicValue, HomeError>] {
        var results: [Result<CharacteristicValue, HomeError>] = []
        var order: [String] = []
        var byAccessory: [String: [CharacteristicUpdate]] = [:]
        var transitions: [String: Double] = [:]
        for request in requests {
            let result = table.check(request)
            if case .success(let canonical) = result {
                if byAccessory[request.accessory] == nil { order.append(request.accessory) }
                byAccessory[request.accessory, default: []].append(
                    CharacteristicUpdate(service: request.service, characteristic: request.characteristic, value: canonical))
                if let transition = request.transition {
                    transitions[request.accessory] = max(transitions[request.accessory] ?? 0, transition)
                }
            }
            results.append(result)
        }
        for id in order { send(byAccessory[id]!, to: id, source: source, transition: transitions[id]) }
        return results
    }

    private mutating func send(_ updates: [CharacteristicUpdate], to id: String, source: ChangeSource, transition: Double?) {
        let sent = table.send(updates, to: id, source: source, deadline: now.addingTimeInterval(10), transition: transition)
        for command in sent.commands {
            counters.deviceWrites += 1
            emit(.device(command))
        }
        for problem in sent.problems { notice(.warning, .api, problem) }
        if !sent.optimistic.isEmpty { apply(sent.optimistic, to: id, origin: "write") }
    }
}
