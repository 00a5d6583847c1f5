/// A value a controller writes, already checked against the characteristic's format, range and
/// permissions.
public struct HAPWrite: Sendable, Hashable {
    public var id: HAPCharacteristicID
    public var value: HAPValue
    /// The controller asked for the value in the answer ("r": true, write-response characteristics).
    public var wantsResponse: Bool

    public init(id: HAPCharacteristicID, value: HAPValue, wantsResponse: Bool = false) {
        self.id = id
        self.value = value
        self.wantsResponse = wantsResponse
    }
}
