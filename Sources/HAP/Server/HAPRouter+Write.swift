extension HAPRouter {
    private struct Item {
        let id: HAPCharacteristicID
        let value: HAPJSON?
        let events: Bool?
        let wantsResponse: Bool
    }

    /// `PUT /characteristics`: values and event subscriptions; 204 when all succeed, else 207.
    func writeRoute(_ request: HAPRequest, _ state: HAPConnectionState) async -> HAPOutcome {
        guard let body = try? HAPJSON.parse(request.body), let list = body["characteristics"]?.array, !list.isEmpty else {
            return HAPOutcome(.status(.invalidValue, http: 400))
        }
        var items: [Item] = []
        for entry in list {
            guard let aid = entry["aid"]?.int, let iid = entry["iid"]?.int else {
                return HAPOutcome(.status(.invalidValue, http: 400))
            }
            let value = entry["value"].flatMap { $0 == .null ? nil : $0 }
            let events: Bool? =
                switch entry["ev"] ?? .null {
                case .bool(let flag): flag
                case .int(let number): number != 0
                default: nil
                }
            items.append(Item(id: HAPCharacteristicID(aid: aid, iid: iid), value: value, events: events, wantsResponse: entry["r"]?.bool == true))
        }

        var state = state
        // A timed write is valid once, before its deadline.
        var timedWriteValid = false
        if let pid = body["pid"]?.int {
            timedWriteValid = state.preparedWrite.map { $0.pid == UInt64(max(0, pid)) && ContinuousClock.now <= $0.deadline } ?? false
            state.preparedWrite = nil
        }
        let timed = body["pid"] != nil

        let known = await metadata(items.map(\.id))
        var statuses: [HAPCharacteristicID: HAPStatus] = [:]
        var writes: [HAPWrite] = []
        for item in items {
            guard let characteristic = known[item.id] else {
                statuses[item.id] = .resourceDoesNotExist
                continue
            }
            if let json = item.value {
                if !characteristic.allows(.pairedWrite) {
                    statuses[item.id] = .readOnly
                } else if (characteristic.allows(.timedWrite) || timed) && !timedWriteValid {
                    statuses[item.id] = .invalidValue
                } else {
                    switch characteristic.validate(json) {
                    case .success(let value): writes.append(HAPWrite(id: item.id, value: value, wantsResponse: item.wantsResponse))
                    case .failure(let status): statuses[item.id] = status
                    }
                }
            }
            if let events = item.events, statuses[item.id] == nil {
                if !characteristic.allows(.events) {
                    statuses[item.id] = .notificationNotSupported
                } else if events {
                    state.subscriptions.insert(item.id)
                } else {
                    state.subscriptions.remove(item.id)
                }
            }
        }
        if !writes.isEmpty {
            let results = await provider.write(writes, from: state.id)
            for write in writes where statuses[write.id] == nil { statuses[write.id] = results[write.id] ?? .success }
        }
        let responseIDs = writes.filter { $0.wantsResponse && statuses[$0.id] == .success }.map(\.id)
        let responses = responseIDs.isEmpty ? [:] : await provider.read(responseIDs)

        let allGood = items.allSatisfy { (statuses[$0.id] ?? .success) == .success }
        guard !allGood || !responses.isEmpty else { return HAPOutcome(.noContent, state: state) }
        var json = HAPJSONWriter()
        json.raw("{\"characteristics\":[")
        for (index, item) in items.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{\"aid\":\(item.id.aid),\"iid\":\(item.id.iid),\"status\":\((statuses[item.id] ?? .success).rawValue)")
            if item.wantsResponse, case .success(let value) = responses[item.id] {
                json.key("value")
                json.value(orNull: value)
            }
            json.raw("}")
        }
        json.raw("]}")
        return HAPOutcome(.json(json.text, status: 207), state: state)
    }
}
