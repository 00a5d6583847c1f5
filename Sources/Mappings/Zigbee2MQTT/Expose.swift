public import JSON

/// One entry of `definition.exposes`: a generic property or a specific type with features.
public struct Expose: Sendable, Hashable {
    public var type: String
    public var name: String?
    public var property: String?
    /// Bit 1 published, bit 2 settable, bit 4 gettable.
    public var access: Int
    public var endpoint: String?
    public var valueOn: JSONValue?
    public var valueOff: JSONValue?
    public var valueMin: Double?
    public var valueMax: Double?
    public var valueStep: Double?
    public var values: [String]
    public var unit: String?
    /// `config` or `diagnostic`; nil for a primary capability.
    public var category: String?
    public var features: [Expose]

    public init(json: JSONValue) {
        type = json["type"]?.stringValue ?? ""
        name = json["name"]?.stringValue
        property = json["property"]?.stringValue
        access = json["access"]?.intValue ?? 1
        endpoint = json["endpoint"]?.stringValue
        valueOn = json["value_on"]
        valueOff = json["value_off"]
        valueMin = json["value_min"]?.doubleValue
        valueMax = json["value_max"]?.doubleValue
        valueStep = json["value_step"]?.doubleValue
        values = json["values"]?.arrayValue?.compactMap(\.stringValue) ?? []
        unit = json["unit"]?.stringValue
        category = json["category"]?.stringValue
        features = json["features"]?.arrayValue?.map(Expose.init(json:)) ?? []
    }

    public var isPublished: Bool { access & 1 != 0 }
    public var isSettable: Bool { access & 2 != 0 }
    public var isGettable: Bool { access & 4 != 0 }

    /// The feature named `name` (one level down).
    public func feature(_ name: String) -> Expose? { features.first { $0.name == name } }

    /// This expose without the given state keys, at any depth; nil when nothing of it is left.
    public func excluding(_ properties: Set<String>) -> Expose? {
        if let property, properties.contains(property) { return nil }
        guard !features.isEmpty else { return self }
        var copy = self
        copy.features = features.compactMap { $0.excluding(properties) }
        return copy.features.isEmpty ? nil : copy
    }
}
