import JSON

extension SimulatedBridge {
    /// The devices that report by themselves: sensors, meters and remotes.
    public var reportingDevices: [String] {
        devices.filter { $0.isServed && $0.reports && !still.contains($0.friendlyName) }.map(\.friendlyName)
    }

    /// One new reading from `id`: temperatures drift, motion and contacts flip, remotes are pressed.
    public mutating func reading(from id: String, using random: inout some RandomNumberGenerator) -> Publish? {
        guard let i = index(of: id), devices[i].isServed else { return nil }
        var extra: [String: JSONValue] = [:]
        for (key, property) in devices[i].properties where property.isPublished && !property.isSettable {
            switch (property.name, property.kind) {
            case ("temperature", _), ("local_temperature", _):
                devices[i].state[key] = .double(
                    ((devices[i].state[key]?.number ?? 21) + Double.random(in: -0.3...0.3, using: &random)).rounded(to: 2))
            case ("humidity", _):
                devices[i].state[key] = .double(
                    min(100, max(0, (devices[i].state[key]?.number ?? 45) + Double.random(in: -1...1, using: &random))).rounded(to: 2))
            case ("illuminance", _), ("illuminance_lux", _):
                devices[i].state[key] = .integer(Int.random(in: 50...800, using: &random))
            case ("power", _):
                devices[i].state[key] = .integer(Int.random(in: 0...60, using: &random))
            case ("occupancy", _), ("contact", _):
                if case .binary(let on, let off, _) = property.kind { devices[i].state[key] = Bool.random(using: &random) ? on : off }
            case ("action", .enumeration(let values)):
                if let value = values.randomElement(using: &random) { extra[key] = .string(value) }
            default:
                break
            }
        }
        return statePublish(devices[i], extra: extra)
    }
}

extension SimulatedDevice {
    var reports: Bool {
        properties.values.contains {
            ["temperature", "local_temperature", "humidity", "illuminance", "occupancy", "contact", "power", "action"].contains($0.name)
        }
    }
}

extension Double {
    func rounded(to places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
