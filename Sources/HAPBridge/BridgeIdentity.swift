/// What the bridge accessory (aid 1) says about itself in AccessoryInformation.
struct BridgeIdentity: Sendable, Hashable {
    var name: String
    /// The HAP device id, so that two homegate bridges on one network tell apart.
    var serialNumber: String
    var firmware: String
}
