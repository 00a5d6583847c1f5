import Foundation
import Testing

@testable import HAP

@Suite("Pairing stores and the configuration number")
struct StoreTests {
    @Test("the file store keeps identity, pairings and c# across reopening, in a file only its owner reads")
    func fileStore() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hap-store-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let identity = HAPIdentity.generate(setupCode: try HAPSetupCode("031-45-154"))
        let pairing = HAPPairing(controllerID: "controller", publicKey: [UInt8](repeating: 9, count: 32), isAdmin: true)
        do {
            let store = try HAPFilePairingStore(path: path)
            try await store.saveIdentity(identity)
            try await store.savePairing(pairing)
            try await store.saveConfigurationNumber(7)
        }
        let reopened = try HAPFilePairingStore(path: path)
        #expect(try await reopened.identity() == identity)
        #expect(await reopened.pairings() == [pairing])
        #expect(await reopened.configurationNumber() == 7)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        try await reopened.removePairing(controllerID: "controller")
        #expect(await reopened.pairings().isEmpty)
    }

    @Test("a file that is not a pairing store is refused with its path")
    func brokenFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hap-broken-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data("not json".utf8))
        #expect(throws: HAPError.self) { try HAPFilePairingStore(path: path) }
    }

    @Test("accessoriesChanged bumps c# and wraps 65535 to 1; the TXT record follows c# and sf")
    func configurationNumber() async throws {
        let store = HAPMemoryPairingStore()
        let server = HAPServer(configuration: HAPServerConfiguration(model: "test"), provider: EmptyProvider(), store: store)
        #expect(try await server.txtRecord()["c#"] == "1")
        #expect(try await server.txtRecord()["sf"] == "1")
        #expect(try await server.accessoriesChanged() == 2)
        await store.saveConfigurationNumber(65535)
        #expect(try await server.accessoriesChanged() == 1)
        await store.savePairing(HAPPairing(controllerID: "c", publicKey: [UInt8](repeating: 1, count: 32), isAdmin: true))
        let txt = try await server.txtRecord()
        #expect(txt["sf"] == "0")
        #expect(txt["c#"] == "1")
        #expect(try await server.identity() == server.identity())
        #expect(try await server.setupURI().hasPrefix("X-HM://"))
    }
}

struct EmptyProvider: HAPAccessoryProvider {
    func accessories() async -> [HAPAccessory] { [] }
    func read(_ ids: [HAPCharacteristicID]) async -> [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] { [:] }
    func write(_ writes: [HAPWrite], from connection: HAPConnectionID) async -> [HAPCharacteristicID: HAPStatus] { [:] }
    func identify(_ aid: Int?) async {}
}
