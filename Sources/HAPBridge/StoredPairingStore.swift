import Foundation
import HAP

/// A bridge's identity (device id, Ed25519 key, setup code and ID), pairings and `c#`, as one JSON
/// value in the database (`adapter_state`), read once and written through on each change.
actor StoredPairingStore: HAPPairingStore {
    private let storage: any BridgeStateStorage
    private let key: String
    private var cached: HAPPairingRecord?

    init(storage: any BridgeStateStorage, key: String) {
        self.storage = storage
        self.key = key
    }

    private func contents() async throws -> HAPPairingRecord {
        if let cached { return cached }
        var loaded = HAPPairingRecord()
        if let text = try await storage.load(key) {
            do {
                loaded = try JSONDecoder().decode(HAPPairingRecord.self, from: Data(text.utf8))
            } catch {
                throw BridgeError.storage("\(key) in the database is not a HomeKit pairing store (\(error))")
            }
        }
        cached = loaded
        return loaded
    }

    private func update(_ change: (inout HAPPairingRecord) -> Void) async throws {
        var contents = try await contents()
        change(&contents)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(contents), as: UTF8.self)
        try await storage.save(key, text)
        cached = contents
    }

    func identity() async throws -> HAPIdentity? { try await contents().identity(at: key) }

    func saveIdentity(_ identity: HAPIdentity) async throws {
        try await update { $0.setIdentity(identity) }
    }

    func pairings() async throws -> [HAPPairing] { try await contents().pairingList }

    func savePairing(_ pairing: HAPPairing) async throws {
        try await update { $0.save(pairing) }
    }

    func removePairing(controllerID: String) async throws {
        try await update { $0.remove(controllerID: controllerID) }
    }

    func configurationNumber() async throws -> UInt32 { try await contents().configurationNumber }

    func saveConfigurationNumber(_ number: UInt32) async throws {
        try await update { $0.configurationNumber = number }
    }
}
