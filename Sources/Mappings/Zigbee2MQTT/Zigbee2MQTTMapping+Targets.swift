extension Zigbee2MQTTMapping {
    /// The characteristics a state key is read into or written through, as (service id,
    /// characteristic): where an expose ends up in the accessory, for the coverage report.
    public func characteristics(forKey key: String) -> [(service: String, characteristic: String)] {
        var targets = (readers[key] ?? []).map(\.target)
        targets += writers.filter { $0.value.key == key }.map(\.key)
        var seen = Set<Target>()
        return targets.filter { seen.insert($0).inserted }.map { ($0.service, $0.characteristic) }
    }
}

extension Zigbee2MQTTMapping.Writer {
    /// The state key the write goes out as.
    var key: String {
        switch self {
        case .onOff(let key, _, _), .number(let key), .percentOf254(let key), .color(let key, _), .enumeration(let key, _),
            .stop(let key), .openClose(let key), .tiltPercent(let key), .mirroredPercent(let key), .levels(let key, _),
            .text(let key):
            key
        }
    }
}

extension Expose {
    /// The state keys of this expose and its features, at any depth.
    var stateKeys: [String] {
        (property.map { [$0] } ?? []) + features.flatMap(\.stateKeys)
    }
}
