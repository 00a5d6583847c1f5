extension HAPRouter {
    /// Looks the ids up in the database, refreshing it once when one is unknown (a new accessory).
    func metadata(_ ids: [HAPCharacteristicID]) async -> [HAPCharacteristicID: HAPCharacteristic] {
        var found = database.characteristics(ids)
        if found.count < Set(ids).count {
            database.replace(with: await provider.accessories())
            found = database.characteristics(ids)
        }
        return found
    }

    /// `GET /characteristics?id=1.9,2.10&meta=1&perms=1&type=1&ev=1`.
    func readRoute(_ request: HAPRequest, _ state: HAPConnectionState) async -> HAPOutcome {
        guard let list = request.queryValue("id"), !list.isEmpty else {
            return HAPOutcome(.status(.invalidValue, http: 400))
        }
        var ids: [HAPCharacteristicID] = []
        for text in list.split(separator: ",") {
            guard let id = HAPCharacteristicID(text) else { return HAPOutcome(.status(.invalidValue, http: 400)) }
            ids.append(id)
        }
        let flag = { (name: String) in request.queryValue(name) == "1" || request.queryValue(name) == "true" }
        let meta = flag("meta"), perms = flag("perms"), type = flag("type"), events = flag("ev")

        let known = await metadata(ids)
        var results: [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        var readable: [HAPCharacteristicID] = []
        for id in ids {
            guard let characteristic = known[id] else {
                results[id] = .failure(.resourceDoesNotExist)
                continue
            }
            if characteristic.allows(.pairedRead) { readable.append(id) } else { results[id] = .failure(.writeOnly) }
        }
        if !readable.isEmpty {
            let values = await provider.read(readable)
            for id in readable { results[id] = values[id] ?? .failure(.serviceCommunicationFailure) }
        }

        let allGood = results.values.allSatisfy { if case .success = $0 { true } else { false } }
        var json = HAPJSONWriter()
        json.raw("{\"characteristics\":[")
        for (index, id) in ids.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{\"aid\":\(id.aid),\"iid\":\(id.iid)")
            switch results[id] {
            case .success(let value):
                json.key("value")
                json.value(orNull: value)
                if !allGood { json.raw(",\"status\":0") }
            case .failure(let status):
                json.raw(",\"status\":\(status.rawValue)")
            case nil:
                json.raw(",\"status\":\(HAPStatus.serviceCommunicationFailure.rawValue)")
            }
            if let characteristic = known[id] {
                HAPAccessoriesJSON.characteristicFields(characteristic, into: &json, type: type, meta: meta, perms: perms)
                if events { json.raw(",\"ev\":\(state.subscriptions.contains(id))") }
            }
            json.raw("}")
        }
        json.raw("]}")
        return HAPOutcome(.json(json.text, status: allGood ? 200 : 207))
    }

    /// `PUT /prepare {"ttl": ms, "pid": n}`: the next timed write must carry this pid in time.
    func prepareRoute(_ request: HAPRequest, _ state: HAPConnectionState) -> HAPOutcome {
        guard let body = try? HAPJSON.parse(request.body), let ttl = body["ttl"]?.int, ttl > 0,
            let pid = body["pid"]?.int, pid >= 0
        else { return HAPOutcome(.status(.invalidValue, http: 400)) }
        var state = state
        state.preparedWrite = .init(pid: UInt64(pid), deadline: .now + .milliseconds(ttl))
        return HAPOutcome(.json("{\"status\":0}"), state: state)
    }
}
