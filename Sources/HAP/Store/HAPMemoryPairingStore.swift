/// A pairing store that forgets on exit, for tests.
public actor HAPMemoryPairingStore: HAPPairingStore {
    private var storedIdentity: HAPIdentity?
    private var storedPairings: [HAPPairing] = []
    private var number: UInt32 = 1

    public init(identity: HAPIdentity? = nil) {
        storedIdentity = identity
    }

    public func identity() -> HAPIdentity? { storedIdentity }
    public func saveIdentity(_ identity: HAPIdentity) { storedIdentity = identity }
    public func pairings() -> [HAPPairing] { storedPairings }

    public func savePairing(_ pairing: HAPPairing) {
        storedPairings.removeAll { $0.controllerID == pairing.controllerID }
        storedPairings.append(pairing)
    }

    public func removePairing(controllerID: String) {
        storedPairings.removeAll { $0.controllerID == controllerID }
    }

    public func configurationNumber() -> UInt32 { number }
    public func saveConfigurationNumber(_ number: UInt32) { self.number = number }
}
