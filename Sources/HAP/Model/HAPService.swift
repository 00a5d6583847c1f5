/// One service of an accessory.
public struct HAPService: Sendable, Hashable {
    public var iid: Int
    public var type: HAPType
    public var primary: Bool
    public var hidden: Bool
    /// The iids of linked services.
    public var linked: [Int]
    public var characteristics: [HAPCharacteristic]

    public init(
        iid: Int, type: HAPType, primary: Bool = false, hidden: Bool = false, linked: [Int] = [],
        characteristics: [HAPCharacteristic]
    ) {
        self.iid = iid
        self.type = type
        self.primary = primary
        self.hidden = hidden
        self.linked = linked
        self.characteristics = characteristics
    }
}
