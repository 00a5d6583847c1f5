import Gateway
import HAP
import Mosquitto
import Secrets
import Testing

@testable import HAPBridge

@Suite("homegate hap reset-code and unpair while homegate is not running: the stored state, as the running bridge keeps it")
struct PairingChangesTests {
    /// A bridge with an identity and `controllers` (id, admin).
    func pairedBridge(_ controllers: [(String, Bool)]) async throws -> (MemoryStorage, HAPIdentity) {
        let storage = MemoryStorage()
        let store = StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: 0))
        let identity = HAPIdentity.generate()
        try await store.saveIdentity(identity)
        for (id, admin) in controllers {
            try await store.savePairing(HAPPairing(controllerID: id, publicKey: Array(repeating: 7, count: 32), isAdmin: admin))
        }
        return (storage, identity)
    }

    @Test("a new random code; the device id, key, setup ID and pairings stay")
    func resetCode() async throws {
        let (storage, identity) = try await pairedBridge([("phone", true)])
        let after = try await StoredBridges.resetSetupCode(bridge: 1, settings: GatewayConfiguration(), storage: storage)
        #expect(after.setupCode != identity.setupCode.description)
        let stored = try #require(try await StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: 0)).identity())
        #expect(stored.setupCode.description == after.setupCode)
        #expect(stored.deviceID == identity.deviceID && stored.longTermSecretKey == identity.longTermSecretKey)
        #expect(stored.setupID == identity.setupID)
        #expect(after.setupURI == HAPSetupURI.make(code: stored.setupCode, setupID: stored.setupID, category: .bridge))
        #expect(after.controllers.map(\.id) == ["phone"])
    }

    @Test("refused while hap.setup_code is configured, and for a bridge the house does not have")
    func resetRefused() async throws {
        let (storage, identity) = try await pairedBridge([])
        var settings = GatewayConfiguration()
        settings.hap.setupCode = Secret("031-45-154")
        await #expect(throws: BridgeError.self) {
            try await StoredBridges.resetSetupCode(bridge: 1, settings: settings, storage: storage)
        }
        do {
            _ = try await StoredBridges.resetSetupCode(bridge: 2, settings: GatewayConfiguration(), storage: storage)
            Issue.record("bridge 2 was reset")
        } catch {
            #expect("\(error)" == "hap: there is no bridge 2: this house has one bridge (1)")
        }
        let stored = try await StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: 0)).identity()
        #expect(stored == identity)
    }

    @Test("one controller goes; the others stay while an admin is left")
    func unpairOne() async throws {
        let (storage, _) = try await pairedBridge([("phone", true), ("ipad", true), ("guest", false)])
        let after = try await StoredBridges.unpair(bridge: 1, controller: "phone", settings: GatewayConfiguration(), storage: storage)
        #expect(after.controllers.map(\.id).sorted() == ["guest", "ipad"])
        // What the bridge reads at its next start.
        let stored = StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: 0))
        #expect(try await stored.pairings().map(\.controllerID).sorted() == ["guest", "ipad"])
    }

    @Test("removing the last admin removes every pairing (HAP's rule); --all removes them all too")
    func lastAdmin() async throws {
        let (storage, _) = try await pairedBridge([("phone", true), ("guest", false)])
        let after = try await StoredBridges.unpair(bridge: 1, controller: "phone", settings: GatewayConfiguration(), storage: storage)
        #expect(after.controllers.isEmpty)
        #expect(HAPPairing.removal(of: "guest", from: [.init(controllerID: "guest", publicKey: [], isAdmin: false)]) == ["guest"])
        let (other, _) = try await pairedBridge([("phone", true), ("ipad", true)])
        let none = try await StoredBridges.unpair(bridge: 1, controller: nil, settings: GatewayConfiguration(), storage: other)
        #expect(none.controllers.isEmpty)
        #expect(try await StoredPairingStore(storage: other, key: BridgeStateKeys.pairing(bridge: 0)).pairings().isEmpty)
    }

    @Test("an unknown controller is named with the ones that are paired, and nothing changes")
    func unknownController() async throws {
        let (storage, _) = try await pairedBridge([("phone", true)])
        do {
            _ = try await StoredBridges.unpair(bridge: 1, controller: "tablet", settings: GatewayConfiguration(), storage: storage)
            Issue.record("an unknown controller was removed")
        } catch {
            #expect("\(error)" == "hap: bridge 1 has no paired controller 'tablet'; paired: phone")
        }
        #expect(
            try await StoredPairingStore(storage: storage, key: BridgeStateKeys.pairing(bridge: 0)).pairings().map(\.controllerID) == [
                "phone"
            ])
    }
}
