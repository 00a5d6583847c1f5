import HomeModel
import JSON
import Yams

extension FileReader {
    mutating func service(_ node: Node, in accessory: Accessory) -> (Service, [MQTTBinding])? {
        guard
            let f = fields(
                node, "a service", allowed: ["type", "id", "name", "primary", "characteristics"], required: ["type", "characteristics"]),
            let typeName = nonEmpty(f["type"]?.value, "service type")
        else { return nil }
        guard let type = ServiceType.named(typeName) else {
            error(f["type"]?.value, "unknown service type '\(typeName)'\(didYouMean(typeName, ServiceType.all.map(\.name)))")
            return nil
        }
        let id = nonEmpty(f["id"]?.value, "service id") ?? type.name
        if Accessory.topicSafeID(id) != id { error(f["id"]?.value, "service id '\(id)' must use only a-z, 0-9, _ and -") }
        if accessory[id] != nil {
            error(f["id"]?.value ?? f["type"]?.value, "service id '\(id)' is used twice in '\(accessory.id)'; give one an 'id'")
            return nil
        }
        guard let list = f["characteristics"]?.value, let entries = list.mapping, !entries.isEmpty else {
            error(f["characteristics"]?.value, "characteristics must map characteristic names to their topics")
            return nil
        }
        var characteristics: [Characteristic] = []
        var bindings: [MQTTBinding] = []
        for (key, value) in entries {
            guard let name = key.string else { continue }
            guard let characteristicType = CharacteristicType.named(name) else {
                let allowed = (type.required + type.optional).map(\.name)
                error(
                    key,
                    "unknown characteristic '\(name)'\(didYouMean(name, allowed.isEmpty ? CharacteristicType.all.map(\.name) : allowed))")
                continue
            }
            guard type.allows(characteristicType) else {
                error(
                    key,
                    "\(type.name) has no characteristic '\(name)' (it has \((type.required + type.optional).map(\.name).joined(separator: ", ")))"
                )
                continue
            }
            guard let (characteristic, binding) = characteristic(value, characteristicType, service: id) else { continue }
            characteristics.append(characteristic)
            if let binding { bindings.append(binding) }
        }
        // HomeKit requires these; without a topic they simply stay unknown.
        for required in type.required where !characteristics.contains(where: { $0.type == required }) {
            characteristics.append(Characteristic(required))
        }
        let service = Service(
            id: id, type: type, name: string(f["name"]?.value, "service name"),
            isPrimary: bool(f["primary"]?.value, "primary") ?? false, characteristics: characteristics)
        return (service, bindings)
    }

    mutating func characteristic(_ node: Node, _ type: CharacteristicType, service: String) -> (Characteristic, MQTTBinding?)? {
        let what = type.name
        guard let f = fields(node, "characteristic '\(what)'", allowed: ["state", "set", "get", "value", "min", "max", "step"]) else {
            return nil
        }
        var characteristic = Characteristic(type)
        if let node = f["min"]?.value, let v = number(node, "\(what) min") { characteristic.minValue = v }
        if let node = f["max"]?.value, let v = number(node, "\(what) max") { characteristic.maxValue = v }
        if let node = f["step"]?.value, let v = number(node, "\(what) step") { characteristic.minStep = v }
        if let node = f["value"]?.value {
            if let value = node.scalar.map({ MQTTBinding.scalar(Array($0.string.utf8)) }) {
                switch MQTTBinding.coerce(value, to: type.format).flatMap({
                    characteristic.check($0).mapError { Transforms.Failure(description: $0.description) }
                }) {
                case .success(let v): characteristic.value = v
                case .failure(let failure): error(node, "\(what) value: \(failure)")
                }
            } else {
                error(node, "\(what) value must be a single value")
            }
        }
        var binding = MQTTBinding(service: service, characteristic: type.name)
        if let node = f["state"]?.value { binding.state = stateSpec(node, characteristic) }
        if let node = f["set"]?.value {
            if type.isWritable {
                binding.set = setSpec(node, characteristic)
            } else {
                error(f["set"]?.key, "\(what) is read-only in HomeKit, so it cannot have 'set'")
            }
        }
        if let node = f["get"]?.value, let g = fields(node, "\(what) get", allowed: ["topic", "payload"], required: ["topic"]),
            let topic = topic(g["topic"]?.value, "\(what) get topic")
        {
            binding.get = MQTTBinding.GetSpec(topic: topic, payload: string(g["payload"]?.value, "\(what) get payload") ?? "")
        }
        if f["state"] == nil, f["set"] == nil, f["value"] == nil {
            error(node, "\(what) needs 'state', 'set' or a fixed 'value'")
        }
        let hasTopics = binding.state != nil || binding.set != nil || binding.get != nil
        return (characteristic, hasTopics ? binding : nil)
    }
}
