/// What the server asks of the house: the accessory database, reads, writes and identify.
/// The adapter implements it; the server checks formats, ranges and permissions before `write`.
public protocol HAPAccessoryProvider: Sendable {
    /// The whole database for `GET /accessories`; aid 1, the bridge with AccessoryInformation
    /// (3E) and ProtocolInformation (A2), is the provider's to include.
    func accessories() async -> [HAPAccessory]
    /// Current values; `.serviceCommunicationFailure` for an unreachable accessory; nil reads as
    /// null (what HAP wants of ProgrammableSwitchEvent, which is only ever notified).
    func read(_ ids: [HAPCharacteristicID]) async -> [HAPCharacteristicID: Result<HAPValue?, HAPStatus>]
    /// Values to set, each already valid for its characteristic. A missing id counts as success.
    func write(_ writes: [HAPWrite], from connection: HAPConnectionID) async -> [HAPCharacteristicID: HAPStatus]
    /// Makes an accessory show itself; nil for the bridge (unpaired `POST /identify`).
    func identify(_ aid: Int?) async
}
