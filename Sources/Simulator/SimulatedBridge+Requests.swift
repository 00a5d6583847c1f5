import JSON

extension SimulatedBridge {
    /// `bridge/request/<command>`: Zigbee2MQTT's own rename and remove, plus `simulator/*` commands
    /// that stand in for the radio: joins, availability, the bridge going down, button presses.
    mutating func request(_ command: String, payload: [UInt8]) -> [Publish] {
        let body = (try? JSONValue(parsing: payload)) ?? .string(String(decoding: payload, as: UTF8.self))
        let transaction = body["transaction"]
        var out: [Publish] = []
        let result: Result<JSONValue, RequestError>
        switch command {
        case "device/rename": result = rename(body, &out)
        case "device/remove": result = remove(body, &out)
        case "simulator/add": result = add(body, &out)
        case "simulator/availability": result = setAvailability(body, &out)
        case "simulator/bridge_state": result = bridgeState(body, &out)
        case "simulator/action": result = action(body, &out)
        case "simulator/report": result = report(body, &out)
        default: result = .failure(RequestError("Request '\(command)' is not supported by the simulator"))
        }
        var response: [String: JSONValue]
        switch result {
        case .success(let data): response = ["status": "ok", "data": data]
        case .failure(let error): response = ["status": "error", "data": [:], "error": .string(error.message)]
        }
        if let transaction { response["transaction"] = transaction }
        out.append(Publish("\(baseTopic)/bridge/response/\(command)", JSONValue.object(response).serialized()))
        return out
    }

    struct RequestError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private func id(_ body: JSONValue) -> String? { body.stringValue ?? body["id"]?.stringValue }

    private func device(_ body: JSONValue) -> Result<Int, RequestError> {
        guard let id = id(body) else { return .failure(RequestError("Invalid payload")) }
        guard let i = index(of: id) else { return .failure(RequestError("Device '\(id)' does not exist")) }
        return .success(i)
    }

    private mutating func rename(_ body: JSONValue, _ out: inout [Publish]) -> Result<JSONValue, RequestError> {
        guard let from = body["from"]?.stringValue, let to = body["to"]?.stringValue else {
            return .failure(RequestError("Invalid payload"))
        }
        guard let i = index(of: from) else { return .failure(RequestError("Device '\(from)' does not exist")) }
        guard !to.contains("+"), !to.contains("#") else {
            return .failure(RequestError("MQTT wildcard (+ and #) not allowed in friendly_name ('\(to)')"))
        }
        let old = devices[i].friendlyName
        devices[i].friendlyName = to
        out.append(Publish("\(baseTopic)/\(old)", "", retain: true))
        out.append(Publish("\(baseTopic)/\(old)/availability", "", retain: true))
        out.append(devicesMessage())
        out.append(availability(devices[i]))
        out.append(statePublish(devices[i]))
        return .success(["from": .string(old), "to": .string(to), "homeassistant_rename": false])
    }

    private mutating func remove(_ body: JSONValue, _ out: inout [Publish]) -> Result<JSONValue, RequestError> {
        switch device(body) {
        case .failure(let error): return .failure(error)
        case .success(let i):
            let gone = devices.remove(at: i)
            out.append(Publish("\(baseTopic)/\(gone.friendlyName)", "", retain: true))
            out.append(Publish("\(baseTopic)/\(gone.friendlyName)/availability", "", retain: true))
            out.append(devicesMessage())
            return .success(["id": .string(id(body) ?? ""), "block": false, "force": false])
        }
    }

    /// `{"model":"LED1545G12","friendly_name":"new_bulb","ieee_address":"0x..."}`: a device of a known model joins.
    private mutating func add(_ body: JSONValue, _ out: inout [Publish]) -> Result<JSONValue, RequestError> {
        guard let model = body["model"]?.stringValue, let name = body["friendly_name"]?.stringValue else {
            return .failure(RequestError("Invalid payload: expected model and friendly_name"))
        }
        guard var entry = catalogue[model] else { return .failure(RequestError("Unknown model '\(model)'")) }
        guard index(of: name) == nil else { return .failure(RequestError("Device '\(name)' already exists")) }
        let ieee = body["ieee_address"]?.stringValue ?? "0x" + String(UInt64.random(in: 1...UInt64.max), radix: 16).leftPadded(to: 16)
        entry = entry.setting("friendly_name", to: .string(name)).setting("ieee_address", to: .string(ieee))
        devices.append(SimulatedDevice(entry: entry))
        out.append(devicesMessage())
        out.append(availability(devices[devices.count - 1]))
        out.append(statePublish(devices[devices.count - 1]))
        return .success(["friendly_name": .string(name), "ieee_address": .string(ieee)])
    }

    private mutating func setAvailability(_ body: JSONValue, _ out: inout [Publish]) -> Result<JSONValue, RequestError> {
        switch device(body) {
        case .failure(let error): return .failure(error)
        case .success(let i):
            devices[i].available = body["state"]?.stringValue != "offline"
            out.append(availability(devices[i]))
            return .success(["id": .string(devices[i].friendlyName), "state": .string(devices[i].available ? "online" : "offline")])
        }
    }

    private func bridgeState(_ body: JSONValue, _ out: inout [Publish]) -> Result<JSONValue, RequestError> {
        let state = body["state"]?.stringValue == "offline" ? "offline" : "online"
        out.append(Publish("\(baseTopic)/bridge/state", #"{"state":"\#(state)"}"#, retain: true))
        return .success(["state": .string(state)])
    }

    /// `{"id":"remote","action":"on_press"}`: a button press, published once and never cached.
    private func action(_ body: JSONValue, _ out: inout [Publish]) -> Result<JSONValue, RequestError> {
        switch device(body) {
        case .failure(let error): return .failure(error)
        case .success(let i):
            guard let action = body["action"]?.stringValue else { return .failure(RequestError("Invalid payload: expected action")) }
            out.append(statePublish(devices[i], extra: ["action": .string(action)]))
            return .success(["id": .string(devices[i].friendlyName), "action": .string(action)])
        }
    }

    /// `{"id":"occupancy_sensor","state":{"occupancy":true}}`: the device reports new readings.
    private mutating func report(_ body: JSONValue, _ out: inout [Publish]) -> Result<JSONValue, RequestError> {
        switch device(body) {
        case .failure(let error): return .failure(error)
        case .success(let i):
            guard case .object(let fields)? = body["state"] else { return .failure(RequestError("Invalid payload: expected state")) }
            for (key, value) in fields { devices[i].state[key] = value }
            out.append(statePublish(devices[i]))
            return .success(["id": .string(devices[i].friendlyName)])
        }
    }
}
