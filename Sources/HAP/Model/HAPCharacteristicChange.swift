/// A value that changed on the provider's side, for the controllers subscribed to it.
public struct HAPCharacteristicChange: Sendable, Hashable {
    public var id: HAPCharacteristicID
    public var value: HAPValue

    public init(id: HAPCharacteristicID, value: HAPValue) {
        self.id = id
        self.value = value
    }
}
