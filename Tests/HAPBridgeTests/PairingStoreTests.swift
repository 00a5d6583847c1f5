import HAP
import Testing

@testable import HAPBridge

@Suite("a bridge's identity and pairings kept in the database")
struct PairingStoreTests {
    @Test("identity, pairings and c# come back from storage; the secret key is not in the identity's description")
    func roundTrip() async throws {
        let storage = MemoryStorage()
        let store = StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: 0))
        #expect(try await store.identity() == nil)
        let identity = HAPIdentity.generate()
        try await store.saveIdentity(identity)
        try await store.savePairing(HAPPairing(controllerID: "phone", publicKey: Array(repeating: 7, count: 32), isAdmin: true))
        try await store.saveConfigurationNumber(5)
        // A fresh store over the same storage: what homegate finds after a restart.
        let again = StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: 0))
        #expect(try await again.identity() == identity)
        #expect(try await again.pairings().map(\.controllerID) == ["phone"])
        #expect(try await again.configurationNumber() == 5)
        try await again.removePairing(controllerID: "phone")
        #expect(try await again.pairings().isEmpty)
        #expect(!"\(identity)".contains(identity.setupCode.description))
        #expect(BridgeStateKeys.pairing(bridge: 1) == "hap.pairing.2")
    }
}
