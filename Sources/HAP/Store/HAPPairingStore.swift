/// Where the server keeps its identity, the paired controllers and the configuration number.
/// The adapter stores them in its database; `HAPMemoryPairingStore` and `HAPFilePairingStore`
/// serve tests and the demo.
public protocol HAPPairingStore: Sendable {
    /// The identity, or nil before the first start.
    func identity() async throws -> HAPIdentity?
    func saveIdentity(_ identity: HAPIdentity) async throws
    func pairings() async throws -> [HAPPairing]
    /// Adds the pairing, or replaces the one with the same controller id.
    func savePairing(_ pairing: HAPPairing) async throws
    func removePairing(controllerID: String) async throws
    /// `c#`, 1 before the first save.
    func configurationNumber() async throws -> UInt32
    func saveConfigurationNumber(_ number: UInt32) async throws
}
