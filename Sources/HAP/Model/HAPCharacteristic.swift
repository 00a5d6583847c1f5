/// One characteristic of `GET /accessories`: metadata and, when readable, its value.
public struct HAPCharacteristic: Sendable, Hashable {
    public var iid: Int
    public var type: HAPType
    public var format: HAPFormat
    public var perms: [HAPPermission]
    public var unit: HAPUnit?
    public var minValue: Double?
    public var maxValue: Double?
    public var minStep: Double?
    public var validValues: [Int]?
    /// For strings; HAP's default is 64.
    public var maxLength: Int?
    public var description: String?
    public var value: HAPValue?

    public init(
        iid: Int, type: HAPType, format: HAPFormat, perms: [HAPPermission], unit: HAPUnit? = nil,
        minValue: Double? = nil, maxValue: Double? = nil, minStep: Double? = nil, validValues: [Int]? = nil,
        maxLength: Int? = nil, description: String? = nil, value: HAPValue? = nil
    ) {
        self.iid = iid
        self.type = type
        self.format = format
        self.perms = perms
        self.unit = unit
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.validValues = validValues
        self.maxLength = maxLength
        self.description = description
        self.value = value
    }

    public func allows(_ permission: HAPPermission) -> Bool {
        perms.contains(permission)
    }
}
