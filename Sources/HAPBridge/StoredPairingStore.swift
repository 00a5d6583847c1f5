import Foundation
import HAP

/// A bridge's identity (device id, Ed25519 key, setup code and ID), pairings and `c#`, as one JSON
/// value in the database (`adapter_state`), read once and written through on each change.
actor StoredPairingStore: HAPPairingStore {
    private let storage: any BridgeStateStorage
    private let key: String
    private var cached: Contents?

    struct Contents: Codable {
        struct Pairing: Codable {
            var controllerID: String
            var publicKey: String
            var isAdmin: Bool
        }
        var deviceID: String?
        var longTermSecretKey: String?
        var setupCode: String?
        var setupID: String?
        var pairings: [Pairing] = []
        var configurationNumber: UInt32 = 1
    }

    init(storage: any BridgeStateStorage, key: String) {
        self.storage = storage
        self.key = key
    }

    private func contents() async throws -> Contents {
        if let cached { return cached }
        var loaded = Contents()
        if let text = try await storage.load(key) {
            do {
                loaded = try JSONDecoder().decode(Contents.self, from: Data(text.utf8))
            } catch {
                throw BridgeError.storage("\(key) in the database is not a HomeKit pairing store (\(error))")
            }
        }
        cached = loaded
        return loaded
    }

    private func update(_ change: (inout Contents) -> Void) async throws {
        var contents = try await contents()
        change(&contents)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(contents), as: UTF8.self)
        try await storage.save(key, text)
        cached = contents
    }

    func identity() async throws -> HAPIdentity? {
        let contents = try await contents()
        guard let deviceID = contents.deviceID, let key = contents.longTermSecretKey, let code = contents.setupCode,
            let setupID = contents.setupID
        else { return nil }
        guard let keyBytes = Data(base64Encoded: key) else {
            throw BridgeError.storage("\(self.key): the long-term secret key is not base64")
        }
        return try HAPIdentity(
            deviceID: HAPDeviceID(deviceID), longTermSecretKey: Array(keyBytes), setupCode: HAPSetupCode(code),
            setupID: HAPSetupID(setupID))
    }

    func saveIdentity(_ identity: HAPIdentity) async throws {
        try await update {
            $0.deviceID = identity.deviceID.description
            $0.longTermSecretKey = Data(identity.longTermSecretKey).base64EncodedString()
            $0.setupCode = identity.setupCode.description
            $0.setupID = identity.setupID.description
        }
    }

    func pairings() async throws -> [HAPPairing] {
        try await contents().pairings.compactMap { pairing in
            Data(base64Encoded: pairing.publicKey).map {
                HAPPairing(controllerID: pairing.controllerID, publicKey: Array($0), isAdmin: pairing.isAdmin)
            }
        }
    }

    func savePairing(_ pairing: HAPPairing) async throws {
        try await update {
            $0.pairings.removeAll { $0.controllerID == pairing.controllerID }
            $0.pairings.append(
                .init(controllerID: pairing.controllerID, publicKey: Data(pairing.publicKey).base64EncodedString(), isAdmin: pairing.isAdmin))
        }
    }

    func removePairing(controllerID: String) async throws {
        try await update { $0.pairings.removeAll { $0.controllerID == controllerID } }
    }

    func configurationNumber() async throws -> UInt32 { try await contents().configurationNumber }

    func saveConfigurationNumber(_ number: UInt32) async throws {
        try await update { $0.configurationNumber = number }
    }
}
